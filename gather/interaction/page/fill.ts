/**
 * Fill and set values: every empty, visible, enabled text field gets a plausible value (set through the isolated
 * world's own `value` setter, which no override of the page's reaches, as a person's typing would not; then input
 * and change events), so that a button acts on a filled form; selects, colours and dates get another value of
 * their own.
 */
import { disabled, isTextField, selectorOf, visible } from './dom.js';
import { tagging } from './reads.js';

const NUMBERISH =
  /(amount|price|number|num|qty|quantity|count|age|weight|height|width|size|rate|percent|year|total|bill|tip|income|salary|cost|value|min|max|length|days|hours|minutes|seconds|score|radius|temp|degrees?|kg|lbs?|cm|km|miles?|people|guests|principal|interest|loan|term)/i;

/** A value the field would accept, from its type and the words around it. */
export function fillValue(el: Element): string {
  const input = el as HTMLInputElement;
  const type = el.tagName === 'INPUT' ? input.type.toLowerCase() : 'textarea';
  const hint = [el.getAttribute('name'), el.id, el.getAttribute('placeholder'), el.getAttribute('aria-label'), input.labels?.[0]?.textContent].join(' ');
  if (type === 'number') return '42';
  if (type === 'email' || /e-?mail/i.test(hint)) return 'test@example.com';
  if (type === 'url' || /\b(url|link|website)\b/i.test(hint)) return 'https://example.com';
  if (type === 'tel' || /phone/i.test(hint)) return '5551234567';
  if (type === 'password') return 'Passw0rd!';
  if (type !== 'textarea' && NUMBERISH.test(hint)) return '42';
  return type === 'textarea' ? 'test text' : 'test';
}

function fieldsToFill(except: Element | null): Element[] {
  const body = document.body;
  if (!body) return [];
  return Array.from(body.querySelectorAll('input, textarea')).filter((el) => {
    if (el === except || !isTextField(el) || disabled(el) || (el as HTMLInputElement).readOnly || !visible(el)) return false;
    return (el as HTMLInputElement | HTMLTextAreaElement).value === '';
  });
}

export function setValue(el: Element, v: string): void {
  (el as HTMLInputElement | HTMLTextAreaElement).value = v;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Empty contenteditable areas (outermost) get text too, with an input event. */
function fillEditables(except: Element | null, done: string[]): void {
  const body = document.body;
  if (!body) return;
  for (const el of Array.from(body.querySelectorAll('[contenteditable]'))) {
    const h = el as HTMLElement;
    if (h === except || !h.isContentEditable || h.parentElement?.isContentEditable || !visible(h) || (h.textContent ?? '').trim() !== '') continue;
    h.textContent = 'test text';
    h.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: 'test text' }));
    done.push(`${selectorOf(h)} = test text`);
  }
}

/** Fill the empty fields but `except` (the field about to be typed into); returns what was filled. */
export function fill(except: Element | null): string[] {
  const done: string[] = [];
  for (const el of fieldsToFill(except)) {
    const v = fillValue(el);
    setValue(el, v);
    done.push(`${selectorOf(el)} = ${v}`);
  }
  fillEditables(except, done);
  return done;
}

/** Choose the first enabled option other than the selected one; its text, or null when there is none. */
export function selectOther(i: number): string | null {
  const s = tagging.tagged[i] as HTMLSelectElement | null;
  if (!s) return null;
  const cur = s.selectedIndex;
  const opts = Array.from(s.options);
  const j = opts.findIndex((o, k) => k !== cur && !o.disabled);
  if (j < 0) return null;
  s.selectedIndex = j;
  s.dispatchEvent(new Event('input', { bubbles: true }));
  s.dispatchEvent(new Event('change', { bubbles: true }));
  return opts[j]!.text.slice(0, 40);
}

const OWN_VALUES: Record<string, string> = {
  color: '#3366cc',
  date: '2026-01-15',
  time: '13:30',
  'datetime-local': '2026-01-15T13:30',
  month: '2026-01',
  week: '2026-W03',
};

/** Set a colour, date or time field to a fixed value of its type. */
export function setOwnValue(i: number): string | null {
  const el = tagging.tagged[i] as HTMLInputElement | null;
  if (!el) return null;
  const val = OWN_VALUES[el.type] ?? '';
  setValue(el, val);
  return val;
}
