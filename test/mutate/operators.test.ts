/**
 * Each mutation operator's edit, source in → source out, without a browser: the edit lands where the parser
 * said, the rest of the file is byte for byte the original, and an operator with nothing to edit says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Mutation, PageModel } from '../../mutate/page.js';
import { OPERATORS, findOperator } from '../../mutate/registry.js';
import { findMetric, suiteMetrics } from '../../metrics/registry.js';
import { fixture, writeArtifact } from '../helpers.js';

const RICH = fixture('mutate', 'rich');
/** A page without images, icons, cards or risky code, and without a viewport meta (fixtures/mutate/no-viewport). */
const PLAIN = fixture('mutate', 'no-viewport');

async function mutate(
  id: string,
  input: string,
): Promise<{ result: Awaited<ReturnType<(typeof OPERATORS)[number]['apply']>>; files: Map<string, string | Buffer>; page: PageModel }> {
  const page = PageModel.load(input);
  const op = findOperator(id);
  assert.ok(op, `operator ${id}`);
  const edit = new Mutation(page);
  const result = await op.apply(page, edit);
  return { result, files: edit.changedFiles(), page };
}

async function html(id: string, input: string): Promise<{ before: string; after: string }> {
  const { result, files, page } = await mutate(id, input);
  assert.equal(result.applied, true, `${id} applies: ${'reason' in result ? result.reason : ''}`);
  const after = files.get(page.entry);
  assert.equal(typeof after, 'string', `${id} changes the entry page`);
  return { before: page.html, after: after as string };
}

/** The one span that differs between two texts: [common prefix, removed, inserted]. */
function diff(a: string, b: string): { at: number; removed: string; inserted: string } {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  let j = 0;
  while (j < a.length - i && j < b.length - i && a[a.length - 1 - j] === b[b.length - 1 - j]) j++;
  return { at: i, removed: a.slice(i, a.length - j), inserted: b.slice(i, b.length - j) };
}

const lineCount = (s: string) => s.split('\n').length;
/** Operators that delete source (comments, a handler statement): only they may change the line count. */
const REMOVES_LINES = new Set(['strip-comments', 'remove-click-handler', 'unprotect']);

test('every rule metric of the extended suite but the reference- and requirement-test-based ones is the target of at least one operator', () => {
  const targeted = new Set(OPERATORS.flatMap((o) => o.targets));
  // metrics scored against a reference design (fidelity) or a requirement's tests are out of scope: `mutate` has
  // neither a reference nor a requirement to give them
  const missing = suiteMetrics('extended')
    .filter((m) => m.kind === 'rule' && !m.needs.includes('reference') && !m.needs.includes('requirement-tests') && !targeted.has(m.id))
    .map((m) => m.id);
  assert.deepEqual(missing, []);
  // collateral names metrics of this build, or of the interaction probe that some operators already target
  for (const o of OPERATORS) for (const c of o.collateral ?? []) assert.ok(findMetric(c) || targeted.has(c), `${o.id}: collateral ${c} is a metric`);
});

test('operator ids are unique and every operator applies to the fixture page without adding a line', async () => {
  assert.equal(new Set(OPERATORS.map((o) => o.id)).size, OPERATORS.length);
  for (const op of OPERATORS) {
    // insert-odd-card is for pages without repeated components: the rich fixture has cards (restyle-card's page)
    const { result, files, page } = await mutate(op.id, op.id === 'insert-odd-card' ? PLAIN : RICH);
    assert.equal(result.applied, true, `${op.id}: ${'reason' in result ? result.reason : ''}`);
    assert.ok(files.size > 0, `${op.id} changed a file`);
    const after = files.get(page.entry);
    if (typeof after === 'string' && !REMOVES_LINES.has(op.id)) assert.equal(lineCount(after), lineCount(page.html), `${op.id} keeps the line count`);
  }
});

test('console-error inserts one script just before </body>', async () => {
  const { before, after } = await html('console-error', RICH);
  const script = "<script>console.error('webgrade mutant: console error at load');</script>";
  assert.equal(after, before.replace('</body>', `${script}</body>`));
});

test('duplicate-attribute writes the first attribute of the first element with one a second time', async () => {
  const { before, after } = await html(
    'duplicate-attribute',
    writeArtifact({ 'index.html': '<!doctype html><html lang="en"><body><p>x</p><a href="/a" class="c">y</a></body></html>' }),
  );
  assert.equal(after, before.replace('<a href="/a" class="c">', '<a href="/a" href="/a" class="c">'));
});

test('invalid-css-value breaks the least visible keyword declaration of a style rule, in place', async () => {
  const page =
    '<!doctype html><html><head><style>@keyframes k{from{cursor:pointer}} .a { display: flex; } .b{cursor : pointer}</style></head><body><p class="a b">x</p></body></html>';
  const { before, after } = await html('invalid-css-value', writeArtifact({ 'index.html': page }));
  assert.equal(after, before.replace('.b{cursor : pointer}', '.b{cursor : hand}'));
});

test('invalid-css-value edits a linked .css file and leaves the HTML alone', async () => {
  const dir = writeArtifact({
    'index.html': '<!doctype html><html><head><link rel="stylesheet" href="s.css"></head><body>x</body></html>',
    's.css': 'p {\n  text-align: center;\n}\n',
  });
  const { result, files } = await mutate('invalid-css-value', dir);
  assert.equal(result.applied, true);
  assert.deepEqual([...files.keys()], ['s.css']);
  assert.equal(files.get('s.css'), 'p {\n  text-align: centre;\n}\n');
});

test('invalid-css-value says why when the CSS has no keyword declaration', async () => {
  const { result } = await mutate('invalid-css-value', writeArtifact({ 'index.html': '<style>p{margin:0}</style><p>x</p>' }));
  assert.equal(result.applied, false);
  assert.match('reason' in result ? result.reason : '', /no keyword declaration/);
});

test('unprotect unwraps the innermost try/catch around a risky call to its try block', async () => {
  const js = 'function f(){\n  try {\n    return JSON.parse(s);\n  } catch (e) {\n    return null;\n  }\n}';
  const { before, after } = await html('unprotect', writeArtifact({ 'index.html': `<body><script>${js}</script></body>` }));
  assert.equal(after, before.replace(js, 'function f(){\n  {\n    return JSON.parse(s);\n  }\n}'));
});

test('unprotect removes a .catch from a fetch chain when no try/catch protects one', async () => {
  const js = "fetch('a').then(r => r.json()).catch(e => show(e));";
  const { before, after } = await html('unprotect', writeArtifact({ 'index.html': `<body><script>${js}</script></body>` }));
  assert.equal(after, before.replace(js, "fetch('a').then(r => r.json());"));
});

test('unprotect leaves a try/catch around code that is not risky alone', async () => {
  const { result } = await mutate('unprotect', writeArtifact({ 'index.html': '<body><script>try { go(); } catch (e) {}</script></body>' }));
  assert.equal(result.applied, false);
});

test('strip-comments removes HTML, CSS and JS comments; a space stays between two non-space neighbours', async () => {
  const page =
    '<!doctype html><!-- a --><html><head><style>/* b */p{color:red}</style></head><body><script>// c\nlet x = 1; /* d */ let y = 2;</script></body></html>';
  const { result, files } = await mutate('strip-comments', writeArtifact({ 'index.html': page }));
  assert.equal(result.applied, true);
  assert.equal(
    files.get('index.html'),
    '<!doctype html> <html><head><style> p{color:red}</style></head><body><script>\nlet x = 1;  let y = 2;</script></body></html>',
  );
});

test('strip-comments keeps a space where a comment separated two tokens', async () => {
  const { files } = await mutate('strip-comments', writeArtifact({ 'index.html': '<script>let/**/x = 1;</script>' }));
  assert.equal(files.get('index.html'), '<script>let x = 1;</script>');
});

test('shift-card and restyle-card edit the second member of the first repeated group', async () => {
  const shifted = await html('shift-card', RICH);
  const d = diff(shifted.before, shifted.after);
  assert.equal(d.inserted, ' style="translate: 4px 4px;"');
  assert.equal(
    shifted.after.indexOf('<article class="card" style="translate: 4px 4px;">'),
    shifted.before.indexOf('<article class="card">', shifted.before.indexOf('<article class="card">') + 1),
  );
  const restyled = await html('restyle-card', RICH);
  assert.match(restyled.after, /<h2 style="font-size: 1\.4em; [^"]*">Timing<\/h2>/);
});

test('an inline style is extended, not replaced', async () => {
  const page = '<body><ul><li style="color: red"><b>a</b><i>b</i></li><li style="color: red;"><b>c</b><i>d</i></li></ul></body>';
  const { before, after } = await html('shift-card', writeArtifact({ 'index.html': page }));
  assert.equal(after, before.replace('<li style="color: red;">', '<li style="color: red; translate: 4px 4px;">'));
});

test('mix-icon-set replaces the second icon of a group with an icon of another set', async () => {
  const { after } = await html('mix-icon-set', RICH);
  assert.equal((after.match(/<svg class="icon"/g) ?? []).length, 2);
  assert.ok(after.includes('<span aria-hidden="true">⭐</span>'));
  const emoji = await html('mix-icon-set', writeArtifact({ 'index.html': '<body><nav><a>🏠</a><a>📞</a></nav></body>' }));
  assert.ok(emoji.after.includes('<a>🏠</a><a><svg aria-hidden="true"'), emoji.after);
});

test('image operators: placeholder URL, missing file, blurred bytes, stretched box', async () => {
  const placeholder = await html('placeholder-image', RICH);
  assert.ok(placeholder.after.includes('<img src="https://via.placeholder.com/600x400" alt="A lake under a blue sky"'));
  const missing = await html('missing-image', RICH);
  assert.ok(missing.after.includes('<img src="webgrade-mutant-missing.png"'));
  const stretched = await html('stretch-image', RICH);
  assert.match(stretched.after, /<img src="lake\.jpg" [^>]*style="width: \d+px !important; height: \d+px !important;/);
  const blur = await mutate('blur-image', RICH);
  const bytes = blur.files.get('lake.jpg');
  assert.ok(Buffer.isBuffer(bytes) && !bytes.equals(readFileSync(`${RICH}/lake.jpg`)), 'lake.jpg replaced by other bytes');
  assert.equal(blur.files.size, 1);
});

test('image operators say why on a page without images', async () => {
  for (const id of ['placeholder-image', 'missing-image', 'stretch-image', 'blur-image', 'remove-alt']) {
    const { result } = await mutate(id, writeArtifact({ 'index.html': '<body><p>no pictures</p></body>' }));
    assert.equal(result.applied, false, id);
  }
});

test('accessibility operators: alt, labels and lang removed, faint text', async () => {
  const alt = await html('remove-alt', RICH);
  assert.ok(!/<img[^>]* alt=/.test(alt.after) && alt.after.includes('<img src="lake.jpg" width="480"'));
  const labels = await html('remove-labels', RICH);
  assert.ok(labels.after.includes('<label for="webgrade-mutant-missing">Trip name</label>'));
  assert.ok(labels.after.includes('<input id="trip-name" name="trip" type="text">'));
  const lang = await html('remove-lang', RICH);
  assert.ok(lang.after.includes('<html>\n'));
  const faint = await html('low-contrast', RICH);
  assert.ok(faint.after.includes('<p class="intro" style="color: rgb(128 128 128 / 0.3) !important;">'));
});

test('wide-block widens the first block of <body>; unsupported-css joins the body rule', async () => {
  const wide = await html('wide-block', RICH);
  assert.ok(wide.after.includes('<main style="min-width: 600px;">') || wide.after.includes('<header style="min-width: 600px;">'));
  // no viewport meta: Chrome lays the page out 980 px wide, so the block must pass that, not the phone's 390 px
  const noViewport = await html('wide-block', fixture('mutate', 'no-viewport'));
  assert.ok(noViewport.after.includes('<main style="min-width: 1200px;">'), noViewport.after);
  for (const [meta, min] of [
    ['<meta name="viewport" content="width=device-width, initial-scale=1">', 600],
    ['<meta name="viewport" content="initial-scale=1">', 600],
    ['<meta name="viewport" content="width=1024">', 1244],
    ['<meta name="viewport" content="user-scalable=no">', 1200],
    ['', 1200],
  ] as const) {
    const page = writeArtifact({ 'index.html': `<html><head>${meta}</head><body><div>x</div></body></html>` });
    const w = await html('wide-block', page);
    assert.ok(w.after.includes(`<div style="min-width: ${min}px;">`), `${meta || 'no meta'}: ${w.after}`);
  }
  const css = await html('unsupported-css', RICH);
  const d = diff(css.before, css.after);
  assert.equal(d.inserted, 'field-sizing: content;');
  assert.ok(css.before.slice(0, d.at).endsWith('line-height: 1.5;\n'));
});

test('interaction operators: a click handler removed, made to throw; an in-page link broken', async () => {
  const removed = await html('remove-click-handler', RICH);
  assert.ok(!removed.after.includes("addEventListener('click'"));
  const throwing = await html('throwing-handler', RICH);
  assert.ok(throwing.after.includes("addEventListener('click', () => { throw new Error('webgrade mutant: handler failed');"));
  const link = await html('break-nav-link', RICH);
  assert.ok(link.after.includes('<a href="#webgrade-mutant-missing">Features</a>'));
  const onclick = await html('throwing-handler', writeArtifact({ 'index.html': '<body><button onclick="go()">Go</button></body>' }));
  assert.ok(onclick.after.includes(`onclick="throw new Error('webgrade mutant: handler failed'); go()"`));
});

test('dead code operators add unused CSS and JS above Lighthouse thresholds on one line', async () => {
  const css = await html('dead-css', RICH);
  const d = diff(css.before, css.after);
  assert.ok(d.inserted.length > 16 * 1024 && !d.inserted.includes('\n'));
  const js = await html('dead-js', RICH);
  const dj = diff(js.before, js.after);
  assert.ok(dj.inserted.length > 24 * 1024 && !dj.inserted.includes('\n'));
});

// Operators that insert the measured feature with its defect (issue 36): they apply to pages that lack it, and the
// static targets see the defect on such a page (unscorable → below 100) and on a page that has the feature (a drop).
test('inserting operators: the static targets see the inserted defect, with and without the feature on the original', async () => {
  const score = async (id: string, input: string, files?: Map<string, string | Buffer>) => {
    const { buildEvidence } = await import('../metric-tester.js');
    const html = files ? (files.get('index.html') as string) : readFileSync(`${input}/index.html`, 'utf8');
    const extra: Record<string, string | Buffer> = {};
    if (!files) return (await findMetric(id)!.score(buildEvidence({ files: { 'index.html': html } }))).score;
    for (const f of ['data.json', 'forest.jpg', 'lake.jpg']) if (input === RICH) extra[f] = readFileSync(`${input}/${f}`);
    return (await findMetric(id)!.score(buildEvidence({ files: { ...extra, 'index.html': html } }))).score;
  };
  for (const [op, metric] of [
    ['unprotected-storage', 'error-handling'],
    ['insert-odd-card', 'component-consistency'],
  ] as const) {
    const { result, files } = await mutate(op, PLAIN);
    assert.equal(result.applied, true);
    assert.equal(await score(metric, PLAIN), null, `${metric} unscorable on the plain page`);
    const after = await score(metric, PLAIN, files);
    assert.ok(after !== null && after < 100, `${op}: ${metric} ${after}`);
    // lint does not mind the inserted code (a false move there would blur the mutant)
    assert.equal(await score('lint', PLAIN, files), await score('lint', PLAIN));
  }
  const { files } = await mutate('unprotected-storage', RICH);
  const before = await score('error-handling', RICH);
  const after = await score('error-handling', RICH, files);
  assert.ok(before !== null && after !== null && after < before, `error-handling ${before} → ${after}`);
  assert.equal((await mutate('insert-odd-card', RICH)).result.applied, false, 'insert-odd-card leaves a page with cards to restyle-card');
});

test('shift-block shifts the second of two neighbouring text blocks; a flat grey PNG for insert-blurry-image', async () => {
  const shifted = await html('shift-block', PLAIN);
  assert.ok(shifted.after.includes('<p style="translate: 4px 0;">Books to read'), shifted.after);
  const page = writeArtifact({ 'index.html': '<body><header><b>Logo</b></header><main><div>one</div><div style="float: left">two</div></main></body>' });
  assert.ok((await html('shift-block', page)).after.includes('<main style="translate: 4px 0;">'));
  const blurry = await html('insert-blurry-image', PLAIN);
  assert.match(blurry.after, /<img src="data:image\/png;base64,[^"]+" width="240" height="160"><\/body>/);
});
