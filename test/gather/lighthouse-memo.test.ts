/**
 * The Lighthouse thread keeps intl-messageformat's locale and message-parse answers (lighthouse.ts
 * `memoiseMessageFormat`): Lighthouse's own formatting of its strings must give the same text with the memo as
 * without, for every shared Lighthouse string, in English and in other locales, on first use and from the memo.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoiseMessageFormat } from '../../gather/lighthouse.js';

type IcuFn = (
  message: string,
  values?: Record<string, string | number>,
) => { i18nId: string; values?: Record<string, string | number>; formattedDefault: string };
const i18n = (await import('lighthouse/core/lib/i18n/i18n.js' as string)) as {
  UIStrings: Record<string, string>;
  createIcuMessageFn: (file: string, strings: Record<string, string>) => IcuFn;
};
const format = (await import('lighthouse/shared/localization/format.js' as string)) as { getFormatted: (m: ReturnType<IcuFn>, locale: string) => string };

/** Every shared Lighthouse string, with a number for each of its placeholders, in four locales. */
function formatAll(): string[] {
  const str = i18n.createIcuMessageFn(import.meta.url, {});
  const out: string[] = [];
  for (const message of Object.values(i18n.UIStrings)) {
    const values: Record<string, number> = {};
    for (const m of message.matchAll(/\{([A-Za-z_]\w*)\s*[,}]/g)) values[m[1]!] = 1234.5;
    const icu = str(message, Object.keys(values).length ? values : undefined);
    out.push(icu.formattedDefault);
    for (const locale of ['en-US', 'de', 'ja', 'en-XL']) out.push(format.getFormatted(icu, locale));
  }
  return out;
}

describe('memoised message formatting in the Lighthouse thread', () => {
  it('formats every shared Lighthouse string the same with the memo as without, on first use and from the memo', () => {
    const plain = formatAll();
    assert.ok(plain.length > 100, `only ${plain.length} strings`);
    assert.ok(
      plain.some((s) => /1[.,\u202f\u00a0]?2/.test(s)),
      'no placeholder was filled',
    );
    memoiseMessageFormat();
    assert.deepEqual(formatAll(), plain);
    assert.deepEqual(formatAll(), plain);
  });
});
