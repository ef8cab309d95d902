/**
 * The mobile measurement (SPEC #19, mobile-compat): the page loaded under iPhone 12 Pro emulation, then the
 * document element's sideways overflow and the outermost elements sticking out to the right.
 *
 * Where it is measured: inside the artifact's one Lighthouse run when Lighthouse runs (lighthouse-mobile.ts;
 * Lighthouse emulates the same device, so the page is not loaded a second time), otherwise in a mobile visit of
 * the visit (collectors/mobile-visit.ts `visitMobile`). Both run `measureOverflow` after load and a short quiet period.
 */
import { KnownDevices } from 'puppeteer-core';
import type { MobileResult } from '../core/browser-evidence.js';

export const MOBILE_DEVICE = 'iPhone 12 Pro';

/** The emulated device: puppeteer's KnownDevices entry (390×844 CSS px, DPR 3, touch, mobile Safari UA). */
export const MOBILE_EMULATION = KnownDevices[MOBILE_DEVICE];

export interface OverflowMeasure {
  scrollWidth: number;
  clientWidth: number;
  offenders: Array<{ selector: string; right: number; width: number }>;
}

export function mobileResult(m: OverflowMeasure, measuredBy: MobileResult['measuredBy']): MobileResult {
  return {
    device: MOBILE_DEVICE,
    viewportWidth: MOBILE_EMULATION.viewport.width,
    scrollWidth: m.scrollWidth,
    clientWidth: m.clientWidth,
    overflowPx: Math.max(0, m.scrollWidth - m.clientWidth),
    offenders: m.offenders,
    measuredBy,
  };
}

/**
 * Runs in the page (self-contained: it is serialised): the document element's overflow at the current viewport and the outermost offenders. */
export function measureOverflow(): OverflowMeasure {
  const de = document.documentElement;
  const clientWidth = de.clientWidth;
  const scrollWidth = de.scrollWidth;
  if (!document.body) return { scrollWidth, clientWidth, offenders: [] };
  const sel = (el: Element): string => {
    const parts: string[] = [];
    for (let e: Element | null = el; e && e !== document.documentElement && parts.length < 4; e = e.parentElement) {
      let s = e.tagName.toLowerCase();
      if (e.id) {
        parts.unshift(`${s}#${e.id}`);
        break;
      }
      const cls = [...e.classList].slice(0, 2);
      if (cls.length) s += '.' + cls.join('.');
      parts.unshift(s);
    }
    return parts.join(' > ');
  };
  let contentRight = document.body ? document.body.scrollWidth + document.body.getBoundingClientRect().left + window.scrollX : 0;
  const sticking = new Set<Element>();
  const all = document.body ? document.body.getElementsByTagName('*') : [];
  const n = Math.min(all.length, 20000);
  for (let i = 0; i < n; i++) {
    const el = all[i]!;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right + window.scrollX > contentRight) contentRight = r.right + window.scrollX;
    if (r.width > 0 && r.right + window.scrollX > clientWidth + 0.5) sticking.add(el);
  }
  const out: Array<{ selector: string; right: number; width: number }> = [];
  for (const el of sticking) {
    if (el.parentElement && sticking.has(el.parentElement)) continue;
    const r = el.getBoundingClientRect();
    out.push({ selector: sel(el), right: Math.round(r.right + window.scrollX), width: Math.round(r.width) });
  }
  out.sort((a, b) => b.right - a.right);
  // When content is wider than the device, mobile Chrome widens the layout viewport to fit it and rounds that
  // width up (420 px of content gives scrollWidth 421): never report more than the content's own right edge.
  return { scrollWidth: Math.min(scrollWidth, Math.max(clientWidth, Math.ceil(contentRight - 0.01))), clientWidth, offenders: out.slice(0, 10) };
}
