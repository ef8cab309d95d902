/**
 * mobile-compat (SPEC #19): the page loaded under iPhone 12 Pro emulation (390×844 CSS px, DPR 3, touch,
 * mobile user agent; puppeteer's KnownDevices); overflow = scrollWidth − clientWidth of the document element
 * after load and a short settle; score = max(0, 100 − overflow_px).
 *
 * Interpretations:
 * - Mobile Chrome widens the layout viewport to fit content wider than the device and rounds that width up
 *   (420 px of content reports scrollWidth 421); the session therefore caps scrollWidth at the right edge of
 *   the content (body scroll width and element boxes), so a 420 px block overflows by exactly 30 px.
 * - A page without `<meta name="viewport">` (or one setting neither width nor initial-scale) is measured as the
 *   phone shows it: Chrome lays it out in the 980 px desktop layout viewport and zooms out to fit, so clientWidth
 *   is 980 and only content wider than 980 px overflows; a desktop-width page shrunk to unreadable text on the
 *   phone still scores 100 (the study measures sideways scrolling, not legibility; Lighthouse's `viewport` audit
 *   in `best-practices` is what flags the missing meta). `width=N` lays it out N px wide likewise.
 * - Overflow hidden by `overflow-x: hidden` on html/body is not overflow (the document cannot scroll
 *   sideways); content cut off that way is not detected.
 * - Details list the outermost elements sticking out to the right, widest first (at most 10).
 * - The emulated load is Lighthouse's own when Lighthouse runs for the artifact (Lighthouse is configured with
 *   the same iPhone 12 Pro; the quiet windows after load play the part of the settle), otherwise a second load
 *   in the session; `details.measuredBy` says which.
 * - Unscorable when the browser session or the emulated load failed (reason from the session).
 */
import { scored, type MetricDefinition } from '../../core/metric.js';
import { present } from '../../core/evidence.js';

const mobileCompat: MetricDefinition = {
  number: 19,
  id: 'mobile-compat',
  perspective: 'accessibility',
  kind: 'rule',
  needs: ['browser', 'mobile'],
  title: 'Mobile compatibility',
  question: 'Does the page fit a phone screen without sideways scrolling?',
  suite: 'study',
  score({ browser }) {
    const m = present(browser, 'the browser evidence').mobile!;
    const score = Math.max(0, 100 - m.overflowPx);
    return scored(
      score,
      m.overflowPx === 0
        ? `fits the ${m.device} width (${m.clientWidth} px)`
        : `${m.overflowPx} px sideways overflow on ${m.device} (content ${m.scrollWidth} px, screen ${m.clientWidth} px)`,
      {
        device: m.device,
        overflowPx: m.overflowPx,
        scrollWidth: m.scrollWidth,
        clientWidth: m.clientWidth,
        offenders: m.offenders,
        ...(m.measuredBy ? { measuredBy: m.measuredBy } : {}),
      },
    );
  },
};

export default mobileCompat;
