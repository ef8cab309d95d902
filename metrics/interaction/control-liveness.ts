/**
 * control-liveness (extended suite, interaction; SPEC "Suites"): UI2App's "the affordance produces no effect".
 * score = 100 × controls with an observable effect / controls acted on.
 *
 * The interaction probe (gather/interaction/probe.ts) enumerates the visible, enabled controls of the
 * start state (buttons, links within the page, text fields, checkboxes and radios, selects, ranges, colour and
 * date inputs, file inputs, any other element with click or key listeners found by CDP
 * `DOMDebugger.getEventListeners`, and the page's document-level key listeners as one "keyboard" control), acts
 * on each once from a restored start state, and records the effects. Interpretations:
 * - The keyboard control is played as players play: each key held for frames of the page clock (keydown, an
 *   auto-repeat, keyup) and read on its own, before the next key, against a run without keys at the same clock
 *   time; the first key with an effect makes it live (opposite keys do not undo each other; a loop that reads a
 *   held key sees it). Its action names the keys tried and the one that had an effect.
 * - Effects: elements added, removed or changed (text, attributes), another field's value, an element shown,
 *   hidden or resized (CSS-only effects included), canvas pixels, an address change within the page (a
 *   fragment counts when it names an element or something else changed), another document loaded, storage or
 *   cookies written, a dialog, focus moved by the page into another element, the page scrolled by the page, a
 *   sound started, a clipboard write, a download, a new window, a file chooser, a request leaving the page (to
 *   the artifact, a CDN, or refused by the sandbox: the control acted; what the answer would have done offline
 *   is not the page's fault), and for fields, their value read by the page's code while some control was acted
 *   on (the field feeds something). What changes by itself (a clock, an animation) is compared with a run
 *   without the action at the same moment of the page clock, so it never counts.
 * - A second chance: a control inert from the start state (an already selected tab, Undo with no history,
 *   Clear with nothing to clear) is acted on once more right after another control acted (a live sibling in its
 *   group, else the nearest live control before it, else after it); if it responds then, it is live, and the
 *   details name that control (`after`). When that second try was due but could not be made (the probe's
 *   budget ran out, or it failed), the control is undecided: neither live nor inert, left out and listed (a
 *   false "inert" is worse than one control fewer).
 * - Not effects: what our own action does to the control itself (its focus, its checked state, the text typed
 *   into it, hover styles), and a native form submission or reload that only brings the page back to its start
 *   state (a form with no handler): those controls are inert.
 * - Acted on = actions that ran (`done`), plus actions after which the page stopped responding (`hung`: not
 *   live). Controls not found again after the reload, actions over the per-action timeout and actions the
 *   probe could not make are left out and listed; so are controls over the cap (`maxControls`, 40 by default,
 *   chosen evenly over document order) and those the budget did not reach.
 * - Unscorable when the page has no controls, or none could be acted on.
 *
 * `--explain control-liveness --out <dir>` draws the inert controls boxed in red on the probe's start-state
 * screenshot (live ones in green), and a sheet of the inert controls' crops (stored as PNG in the evidence).
 */
import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition, type MetricOutcome, type MetricPicture } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import type { InteractionAction, InteractionEvidence } from '../../core/browser-evidence.js';
import { boxInImage, contactSheet, overlay, svgLabel, svgRect } from '../lib/image-tools.js';
import { actionLabel, describeControl, plural, probeEvidence } from './probe-evidence.js';

export interface LivenessTally {
  acted: InteractionAction[];
  live: InteractionAction[];
  inert: InteractionAction[];
  hung: InteractionAction[];
  left: InteractionAction[];
}

/** Sort the probe's actions into live, inert, hung and left out (see the module comment). */
export function tallyLiveness(v: InteractionEvidence): LivenessTally {
  const acted = v.actions.filter((a) => a.outcome === 'done' || a.outcome === 'hung');
  const live = acted.filter((a) => a.outcome === 'done' && a.effects.length > 0);
  const undecided = (a: InteractionAction) => a.outcome === 'done' && a.effects.length === 0 && a.undecided !== undefined;
  const inert = acted.filter((a) => a.outcome === 'done' && a.effects.length === 0 && !undecided(a));
  const hung = acted.filter((a) => a.outcome === 'hung');
  const left = v.actions.filter((a) => (a.outcome !== 'done' && a.outcome !== 'hung') || undecided(a));
  return { acted: acted.filter((a) => !undecided(a)), live, inert, hung, left };
}

async function pictures(evidence: Evidence): Promise<MetricPicture[]> {
  const v = probeEvidence(evidence);
  const t = tallyLiveness(v);
  const out: MetricPicture[] = [];
  const shot = v.screenshot;
  if (shot) {
    let body = '';
    const mark = (a: InteractionAction, colour: string, width: number, label?: string) => {
      const c = v.controls[a.control];
      if (!c?.box || c.page) return;
      // The probe's boxes come from the page: checked and clamped before they reach the picture.
      const box = boxInImage(c.box, shot.width, shot.height);
      if (!box) return;
      const b = { x: box.x - 3, y: box.y - 3, width: box.width + 6, height: box.height + 6 };
      body += svgRect(b, colour, width);
      if (label) body += svgLabel(b.x, Math.max(14, b.y - 4), label, colour, 13);
    };
    for (const a of t.live) mark(a, '#1a9d3c', 2);
    t.inert.forEach((a, i) => mark(a, '#d00', 4, `${i + 1}`));
    t.hung.forEach((a) => mark(a, '#a0f', 4, 'hung'));
    out.push({
      name: 'inert',
      png: await overlay(shot.png, shot.width, shot.height, body),
      caption: `start state: ${plural(t.inert.length, 'inert control')} boxed in red and numbered, ${t.live.length} live in green`,
    });
  }
  if (t.inert.length) {
    const tiles = t.inert.slice(0, 40).map((a, i) => {
      const c = v.controls[a.control]!;
      return { image: a.crop ?? null, bad: true, lines: [`${i + 1}. ${c.kind}: ${c.text || c.selector}`, a.action, a.note ?? ''] };
    });
    out.push({
      name: 'crops',
      png: await contactSheet(`control-liveness: ${plural(t.inert.length, 'inert control')}`, tiles, { tile: 220, columns: 4 }),
      caption: 'the inert controls, cropped from the start state',
    });
  }
  return out;
}

const controlLiveness: MetricDefinition = {
  number: 27,
  id: 'control-liveness',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['interaction'],
  title: 'Control liveness',
  question: 'Does every button, link, field and other control do something when used?',
  suite: 'extended',
  async illustrate(evidence: Evidence, _outcome: MetricOutcome) {
    return pictures(evidence);
  },
  score(evidence) {
    const v = probeEvidence(evidence);
    const found = v.controls.filter((c) => c.kind !== 'page-link' && !c.page);
    const t = tallyLiveness(v);
    const outcomeOf = (a: InteractionAction) => (a.undecided !== undefined && a.outcome === 'done' ? 'undecided' : a.outcome);
    const leftOut = t.left.map((a) => ({
      ...describeControl(v.controls[a.control]!),
      action: a.action,
      outcome: outcomeOf(a),
      ...((a.undecided ?? a.note) ? { note: a.undecided ?? a.note } : {}),
    }));
    const notActed = found.filter((c) => !c.acted).length;
    if (t.acted.length === 0) {
      if (v.hung) return unscorable(v.unavailable?.firstView ?? 'the page did not respond', { faults: v.faults });
      if (found.length === 0)
        return unscorable('the page has no controls to act on (no visible, enabled buttons, fields, in-page links or elements with click or key listeners)', {
          faults: v.faults,
        });
      return unscorable(`none of the ${plural(found.length, 'control')} could be acted on${v.unavailable?.actions ? ` (${v.unavailable.actions})` : ''}`, {
        leftOut,
        faults: v.faults,
      });
    }
    const effectsByKind: Record<string, number> = {};
    for (const a of t.live) for (const e of new Set(a.effects.map((x) => x.kind))) effectsByKind[e] = (effectsByKind[e] ?? 0) + 1;
    const score = (100 * t.live.length) / t.acted.length;
    const inert = [...t.inert, ...t.hung].map((a) => ({
      ...describeControl(v.controls[a.control]!),
      action: a.action,
      ...(a.outcome === 'hung' ? { why: 'the page stopped responding after it' } : {}),
      ...(a.note ? { note: a.note } : {}),
      ...(a.crop ? { crop: `interaction-crop-${a.control}.png` } : {}),
      ...(a.errors.length ? { errors: a.errors.map((e) => e.message) } : {}),
    }));
    const extra = [
      notActed ? `${notActed} over the cap or the budget not acted on` : '',
      leftOut.length ? `${leftOut.length} left out (${[...new Set(t.left.map(outcomeOf))].join(', ')})` : '',
    ].filter(Boolean);
    const summary =
      t.inert.length + t.hung.length === 0
        ? `all ${plural(t.acted.length, 'control')} acted on responded`
        : `${t.inert.length + t.hung.length} of ${plural(t.acted.length, 'control')} inert: ${inert
            .slice(0, 3)
            .map((x) => (x.text ? `"${x.text.slice(0, 30)}"` : x.selector))
            .join(', ')}${inert.length > 3 ? ' …' : ''}`;
    return scored(score, summary + (extra.length ? ` (${extra.join('; ')})` : ''), {
      controls: found.length,
      acted: t.acted.length,
      live: t.live.length,
      inertCount: inert.length,
      inert,
      effectsByKind,
      liveControls: t.live.slice(0, 60).map((a) => ({
        control: actionLabel(a, v.controls[a.control]),
        effects: a.effects.map((e) => `${e.kind}: ${e.detail}`).slice(0, 4),
        ...(a.after !== undefined ? { after: v.controls[a.after]?.text || v.controls[a.after]?.selector } : {}),
      })),
      leftOut,
      notActed,
      ...(v.unavailable?.actions ? { budget: v.unavailable.actions } : {}),
      ...(v.unstable?.length ? { unstable: v.unstable.length } : {}),
      filled: v.filled,
      share: round2(score),
      faults: v.faults,
    });
  },
};

export default controlLiveness;
