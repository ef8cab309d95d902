import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseGoogleFontsUrl } from '../../cdn/fonts.js';
import { served, setup, text, type Env } from './fixtures.js';

let env: Env;
before(async () => {
  env = await setup();
});
after(() => env.close());

const ask = (u: string) => env.cdn().answer(new URL(u));

describe('Google Fonts URLs', () => {
  it('parses css2 axes (ital,wght tuples, ranges) and the css v1 variants', () => {
    const q = parseGoogleFontsUrl(
      new URL(
        'https://fonts.googleapis.com/css2?family=Source+Serif+4:ital,wght@0,400;0,600;1,400&family=Roboto:wght@100..900&family=Space+Mono&display=swap&text=Hi',
      ),
    );
    assert.deepEqual(q.families, [
      {
        family: 'Source Serif 4',
        styles: [
          { ital: 0, wght: 400 },
          { ital: 0, wght: 600 },
          { ital: 1, wght: 400 },
        ],
      },
      { family: 'Roboto', styles: [{ ital: 0, wght: [100, 900] }] },
      { family: 'Space Mono', styles: [{ ital: 0, wght: 400 }] },
    ]);
    assert.equal(q.display, 'swap');
    assert.deepEqual(q.notes, ['text= is ignored: full subsets are served']);
    const v1 = parseGoogleFontsUrl(new URL('https://fonts.googleapis.com/css?family=Roboto:400,700italic|Open+Sans'));
    assert.deepEqual(v1.families, [
      {
        family: 'Roboto',
        styles: [
          { ital: 0, wght: 400 },
          { ital: 1, wght: 700 },
        ],
      },
      { family: 'Open Sans', styles: [{ ital: 0, wght: 400 }] },
    ]);
  });
});

describe('Google Fonts CSS from Fontsource', () => {
  it('generates @font-face blocks per weight, style and subset, pointing at font files this cache serves', async () => {
    const a = served(await ask('https://fonts.googleapis.com/css2?family=Inter:ital,wght@0,400;0,700;1,400&display=swap'));
    assert.equal(a.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(a.headers['access-control-allow-origin'], '*');
    const css = a.body.toString();
    const faces = css.match(/@font-face \{[^}]+\}/g) ?? [];
    assert.equal(faces.length, 6); // (400 normal, 700 normal, 400 italic) × (latin-ext, latin)
    assert.match(
      faces[0]!,
      /font-family: 'Inter';\n  font-style: normal;\n  font-weight: 400;\n  font-display: swap;\n  src: url\(https:\/\/cdn\.jsdelivr\.net\/npm\/@fontsource\/inter@5\.0\.0\/files\/inter-latin-ext-400-normal\.woff2\) format\('woff2'\);\n  unicode-range: U\+0100-02AF, U\+1E00-1EFF;/,
    );
    assert.match(css, /inter-latin-400-italic\.woff2/);
    // the referenced font file is served by the same cache, as a CORS-enabled font
    const src = /url\(([^)]+)\)/.exec(css)![1]!;
    const font = served(await ask(src));
    assert.equal(font.headers['content-type'], 'font/woff2');
    assert.equal(font.headers['access-control-allow-origin'], '*');
  });

  it('uses the variable package for a weight range', async () => {
    const css = text(await ask('https://fonts.googleapis.com/css2?family=Inter:wght@100..900'));
    assert.match(css, /font-weight: 100 900;/);
    assert.match(css, /@fontsource-variable\/inter@5\.0\.0\/files\/inter-latin-wght-normal\.woff2/);
    assert.doesNotMatch(css, /font-display/);
  });

  it('serves the families it has and names the missing family as not found', async () => {
    const a = served(await ask('https://fonts.googleapis.com/css2?family=Inter&family=No+Such+Font&display=swap'));
    assert.ok(a.notes!.includes('not-found: family "No Such Font": no @fontsource/no-such-font package'));
    assert.match(a.body.toString(), /^\/\* webgrade cdn: .*No Such Font/);
    assert.match(a.body.toString(), /font-family: 'Inter'/);
    const none = await ask('https://fonts.googleapis.com/css2?family=No+Such+Font');
    assert.equal(none.kind, 'not-found');
    assert.match((none as { reason: string }).reason, /google-fonts: .*no @fontsource\/no-such-font package/);
  });

  it('notes a weight the family does not have, and serves the rest', async () => {
    const a = served(await ask('https://fonts.googleapis.com/css?family=Inter:400,950'));
    assert.ok(
      a.notes!.some((n) => /Inter: no normal 950/.test(n)),
      String(a.notes),
    );
    assert.match(a.body.toString(), /font-weight: 400;/);
  });

  it('says unavailable for fonts.gstatic.com files (Google’s hashed names)', async () => {
    const a = await ask('https://fonts.gstatic.com/s/inter/v13/UcCO3FwrK3iLTeHuS_fvQtMwCp50KnMw2boKoduKmMEVuLyfAZ9hiA.woff2');
    assert.equal(a.kind, 'unavailable');
  });
});
