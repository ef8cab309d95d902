import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import errorHandling from '../../../metrics/code/error-handling.js';
import { isRiskyName, type FunctionReport } from '../../../metrics/lib/error-handling/units.js';
import type { MetricDetails } from '../../../core/metric.js';
import { testMetric } from '../../metric-tester.js';

/*
 * Expected scores, by hand from SPEC #3: score = (1 − log2(1 + N/(R+1))) × 100
 *   R=1 N=1: 1 − log2(1.5)  = 0.4150374993 → 41.50374992788438
 *   R=2 N=1: 1 − log2(4/3)  = 0.5849625007 → 58.49625007211563
 *   R=2 N=2: 1 − log2(5/3)  = 0.2630344058 → 26.30344058337938
 *   R=3 N=1: 1 − log2(1.25) = 0.6780719051 → 67.80719051126377
 *   R=3 N=2: 1 − log2(1.5)  = 0.4150374993 → 41.50374992788438
 *   R=3 N=3: 1 − log2(1.75) = 0.1926450779 → 19.264507794239583
 *   N=0: 100
 */
const S_1_1 = 41.50374992788438;
const S_2_1 = 58.49625007211563;
const S_2_2 = 26.30344058337938;
const S_3_1 = 67.80719051126377;
const S_3_2 = 41.50374992788438;
const S_3_3 = 19.264507794239583;

const fns = (d: MetricDetails) => d.functions as FunctionReport[];
const fn = (d: MetricDetails, name: string) => {
  const f = fns(d).find((x) => x.name === name);
  assert.ok(
    f,
    `no function ${name} in ${fns(d)
      .map((x) => x.name)
      .join(', ')}`,
  );
  return f;
};

testMetric(errorHandling, [
  {
    name: 'a page without JavaScript is unscorable: no JavaScript',
    html: '<!doctype html><p>static</p>',
    unscorable: 'no JavaScript',
  },
  {
    name: 'JavaScript with nothing risky is unscorable: no function needs error handling',
    html: '<script>function add(a, b) { return a + b; }\nconst twice = (x) => add(x, x);</script>',
    unscorable: 'no function needs error handling',
  },
  {
    // R = 2 (a, b), N = 1 (a)
    name: 'arrow functions: fetch without a catch is unprotected, with .catch() it is protected',
    html: [
      '<script>',
      "const a = () => fetch('/a').then((r) => r.json());",
      "const b = () => fetch('/b').then((r) => r.json()).catch((e) => console.error(e));",
      '</script>',
    ].join('\n'),
    score: S_2_1,
    details: (d) => {
      assert.equal(fn(d, 'a').protected, false);
      assert.deepEqual(fn(d, 'a').unprotected, [{ line: 2, what: 'fetch()' }]);
      assert.equal(fn(d, 'b').how, '.catch()');
      assert.equal(fns(d).length, 2, 'the .then/.catch callbacks do nothing risky');
    },
  },
  {
    // R = 3 (load, save, ping), N = 2 (save, ping)
    name: 'class and object methods: async try/catch protects, storage and await outside try do not',
    html: [
      '<script>',
      'class Store {',
      '  async load() {',
      "    try { const r = await fetch('/x'); return await r.json(); } catch (e) { return null; }",
      '  }',
      "  save(data) { localStorage.setItem('k', JSON.stringify(data)); }",
      '}',
      "const api = { async ping() { await fetch('/ping'); } };",
      '</script>',
    ].join('\n'),
    score: S_3_2,
    details: (d) => {
      const load = fn(d, 'Store.load');
      assert.equal(load.protected, true);
      assert.equal(load.how, 'try/catch');
      assert.deepEqual(load.reasons, ['async', 'fetch()', 'risky name "load"']);
      assert.deepEqual(fn(d, 'Store.save').reasons, ['localStorage', 'risky name "save"']);
      assert.equal(fn(d, 'Store.save').line, 6);
      assert.deepEqual(fn(d, 'ping').reasons, ['async', 'fetch()']);
      assert.equal(fn(d, 'ping').protected, false);
    },
  },
  {
    // R = 2, N = 1: .then(ok, err) protects the first
    name: '.then(ok, err) with two arguments is protection; .then(ok) alone is not',
    html: "<script>\nfunction one() { return fetch('/1').then(show, fail); }\nfunction two() { return fetch('/2').then(show); }\n</script>",
    score: S_2_1,
    details: (d) => {
      assert.equal(fn(d, 'one').how, '.then(ok, err)');
      assert.equal(fn(d, 'two').protected, false);
    },
  },
  {
    // R = 1, N = 0: both the fetch and the await are covered by the .catch on the awaited chain
    name: 'awaiting a caught chain protects the await',
    html: '<script>\nasync function get(u) { const r = await fetch(u).catch(() => null); return r; }\n</script>',
    score: 100,
    details: (d) => assert.equal(fn(d, 'get').how, '.catch()'),
  },
  {
    // load: try around the awaited Promise.all; the .map callback (async) fails into it; the first .then
    // callback parses JSON inside a chain caught later; the second is in an uncaught chain, and so is the
    // top-level fetch('/b'): R = 5, N = 2 → (1 − log2(1 + 2/6)) × 100 = 58.49625007211563
    name: 'callbacks of .then and of .map inside Promise.all are protected by the promise they fail into',
    html: [
      '<script>',
      'async function load(urls) {',
      '  try { return await Promise.all(urls.map(async (u) => (await fetch(u)).json())); } catch (e) { return []; }',
      '}',
      "fetch('/a').then((r) => r.text()).then((t) => JSON.parse(t)).catch(() => null);",
      "fetch('/b').then((r) => r.text()).then((t) => JSON.parse(t));",
      '</script>',
    ].join('\n'),
    score: S_2_1,
    details: (d) => {
      assert.deepEqual(
        fns(d).map((f) => [f.name, f.line, f.protected]),
        [
          ['top-level code', 2, false],
          ['load', 2, true],
          ['map callback', 3, true],
          ['then callback', 5, true],
          ['then callback', 6, false],
        ],
      );
    },
  },
  {
    // the first script nests deeper than the call stack and is left out; the second is analysed: R = 1, N = 1
    name: 'a script too deeply nested to walk is skipped and the others are still analysed',
    html: `<script>var s = ${'"a"+'.repeat(20000)}"a";</script>\n<script>function readIt(t) { return JSON.parse(t); }</script>`,
    score: S_1_1,
    details: (d) => assert.equal((d.skippedBlocks as unknown[]).length, 1),
  },
  {
    name: 'when every script is too deeply nested, the metric is unscorable, not 0',
    html: `<script>var s = ${'"a"+'.repeat(20000)}"a";</script>`,
    unscorable: /JavaScript could not be analysed/,
  },
  {
    // R = 1, N = 1
    name: 'try/finally without a catch clause is not protection',
    html: '<script>\nfunction readIt(t) { try { return JSON.parse(t); } finally { done(); } }\n</script>',
    score: S_1_1,
  },
  {
    // setup: nothing risky directly; the listener: JSON.parse outside any try of its own. R = 1, N = 1.
    name: 'a try in the outer function does not protect a nested callback',
    html: [
      '<script>',
      'function setup() {',
      '  try {',
      "    button.addEventListener('click', () => { const d = JSON.parse(input.value); show(d); });",
      '  } catch (e) {}',
      '}',
      '</script>',
    ].join('\n'),
    score: S_1_1,
    details: (d) => {
      assert.deepEqual(
        fns(d).map((f) => f.name),
        ['click listener'],
      );
      assert.equal(fns(d)[0]!.line, 4);
    },
  },
  {
    // outer does nothing risky directly (inner is a nested function); inner is called inside outer's try. R = 1, N = 0.
    name: 'nested functions: risk inside a nested function is not the outer one, and a try around the call protects it',
    html: '<script>\nfunction outer(x) {\n  function inner() { return JSON.parse(x); }\n  try { return inner(); } catch { return null; }\n}\n</script>',
    score: 100,
    details: (d) => {
      assert.deepEqual(
        fns(d).map((f) => f.name),
        ['inner'],
      );
      assert.match(fn(d, 'inner').how!, /by its callers/);
    },
  },
  {
    // start (schedules I/O) and the interval callback (does it): R = 2, N = 2
    name: 'a timer whose callback does I/O counts against the scheduler and the callback',
    html: "<script>\nfunction start() { setInterval(() => { fetch('/poll'); }, 1000); }\n</script>",
    score: S_2_2,
    details: (d) => {
      assert.deepEqual(fn(d, 'start').reasons, ['setInterval callback does fetch()']);
      assert.deepEqual(fn(d, 'setInterval callback').reasons, ['fetch()']);
    },
  },
  {
    name: 'a timer callback that catches its own I/O errors protects both',
    html: "<script>\nfunction start() { setInterval(() => { fetch('/poll').catch(() => {}); }, 1000); }\n</script>",
    score: 100,
  },
  {
    // get (xhr.onerror) and db (error listener) are protected, live (no onerror) is not: R = 3, N = 1
    name: 'error callbacks protect XMLHttpRequest, indexedDB; a WebSocket without onerror is unprotected',
    html: [
      '<script>',
      "function get(url) { const xhr = new XMLHttpRequest(); xhr.open('GET', url); xhr.onerror = () => {}; xhr.send(); }",
      "function live() { const ws = new WebSocket('wss://x'); ws.onmessage = (e) => show(e.data); }",
      "function db() { const req = indexedDB.open('db'); req.addEventListener('error', () => {}); }",
      '</script>',
    ].join('\n'),
    score: S_3_1,
    details: (d) => {
      assert.equal(fn(d, 'get').how, 'xhr.onerror');
      assert.deepEqual(fn(d, 'get').reasons, ['new XMLHttpRequest()', 'xhr.open()', 'xhr.send()']);
      assert.equal(fn(d, 'db').how, 'req.onerror');
      assert.equal(fn(d, 'live').protected, false);
    },
  },
  {
    // a: unprotected, b: try/catch, c: .catch: R = 3, N = 1; everything on line 3
    name: 'minified one-line code: every function is found and mapped to the script line',
    html: '<!doctype html>\n<p>x</p>\n<script>function a(){return JSON.parse(s)}function b(){try{return JSON.parse(s)}catch(e){return null}}var c=function(){fetch("/x").catch(function(){})};</script>',
    score: S_3_1,
    details: (d) => {
      assert.deepEqual(
        fns(d).map((f) => [f.name, f.line, f.protected]),
        [
          ['a', 3, false],
          ['b', 3, true],
          ['c', 3, true],
        ],
      );
    },
  },
  {
    // save is found in the loosely parsed tree: R = 1, N = 1
    name: 'code with a syntax error is analysed on the recovered tree and says so',
    html: "<script>\nfunction save() { localStorage.setItem('a', 1); }\nfunction broken( {\n</script>",
    score: S_1_1,
    details: (d) => {
      const rec = d.recoveredBlocks as Array<{ line: number; syntaxError?: string }>;
      assert.equal(rec.length, 1);
      assert.match(rec[0]!.syntaxError ?? '', /Unexpected token/);
      assert.equal(fn(d, 'save').protected, false);
    },
  },
  {
    // loadData: protected by its inline caller; saveData: used by an onclick attribute (unprotected): R = 2, N = 1
    name: 'inline and file scripts: a file function is protected by an inline caller, not by an onclick use',
    files: {
      'index.html':
        '<!doctype html>\n<script src="app.js"></script>\n<script>\ntry { loadData(); } catch (e) { console.warn(e); }\n</script>\n<button onclick="saveData(1)">save</button>\n',
      'app.js':
        "// storage helpers\nfunction loadData() { return JSON.parse(localStorage.getItem('d')); }\nfunction saveData(d) { localStorage.setItem('d', JSON.stringify(d)); }\n",
    },
    score: S_2_1,
    details: (d) => {
      const load = fn(d, 'loadData');
      assert.equal(load.file, 'app.js');
      assert.equal(load.line, 2);
      assert.match(load.how!, /by its callers/);
      assert.equal(fn(d, 'saveData').protected, false);
    },
  },
  {
    // the two onclick attributes are the units: R = 2, N = 1; the attribute unit is at its line in the HTML file
    name: 'event-handler attributes are units of their own, at their HTML line',
    html: '<!doctype html>\n<p>x</p>\n<button onclick="fetch(\'/x\').then(r => r.text())">a</button>\n<button onclick="fetch(\'/y\').catch(console.error)">b</button>\n',
    score: S_2_1,
    details: (d) => {
      assert.deepEqual(
        fns(d).map((f) => [f.name, f.line, f.protected]),
        [
          ['onclick attribute', 3, false],
          ['onclick attribute', 4, true],
        ],
      );
    },
  },
  {
    // parseConfig (risky name, no try) and loadItems (risky name, has a try/catch): R = 2, N = 1
    name: 'risky names need protection even without I/O; loader and ready are not risky names',
    html: [
      '<script>',
      "function parseConfig(t) { return t.split(','); }",
      'function loadItems() { try { return build(); } catch (e) { return []; } }',
      'function loader() { return 1; }',
      'function ready() { return 2; }',
      '</script>',
    ].join('\n'),
    score: S_2_1,
    details: (d) =>
      assert.deepEqual(
        fns(d).map((f) => f.name),
        ['parseConfig', 'loadItems'],
      ),
  },
  {
    // fetchJson ← awaited by refresh ← awaited inside main's try: all three protected, R = 3, N = 0
    name: 'protection flows up the call chain: one try/catch at the top protects awaited helpers',
    html: [
      '<script>',
      'async function fetchJson(u) { const r = await fetch(u); return r.json(); }',
      "async function refresh() { const d = await fetchJson('/d'); render(d); }",
      'async function main() { try { await refresh(); } catch (e) { show(e); } }',
      'main();',
      '</script>',
    ].join('\n'),
    score: 100,
    details: (d) => {
      assert.match(fn(d, 'fetchJson').how!, /by its callers/);
      assert.match(fn(d, 'refresh').how!, /by its callers/);
      assert.equal(fn(d, 'main').how, 'try/catch');
    },
  },
  {
    // same chain without the try: R = 3, N = 3
    name: 'without a try at the top, the whole async chain is unprotected',
    html: [
      '<script>',
      'async function fetchJson(u) { const r = await fetch(u); return r.json(); }',
      "async function refresh() { const d = await fetchJson('/d'); render(d); }",
      'async function main() { await refresh(); }',
      "document.addEventListener('DOMContentLoaded', main);",
      '</script>',
    ].join('\n'),
    score: S_3_3,
  },
  {
    // top-level code of a classic script reading storage at load: R = 1, N = 1; Promise.allSettled protects: the second script adds R = 1, N = 0 → R = 2, N = 1
    name: 'top-level code is a unit; Promise.allSettled handles rejections',
    html: [
      '<script>',
      "const todos = JSON.parse(localStorage.getItem('todos') || '[]');",
      '</script>',
      '<script type="module">',
      "const results = await Promise.allSettled([fetch('/a'), fetch('/b')]);",
      '</script>',
    ].join('\n'),
    score: S_2_1,
    details: (d) => {
      const tops = fns(d).filter((f) => f.name === 'top-level code');
      assert.deepEqual(
        tops.map((f) => [f.line, f.protected]),
        [
          [2, false],
          [5, true],
        ],
      );
    },
  },
]);

describe('error-handling risky names', () => {
  it('matches the documented prefixes at a word boundary only', () => {
    for (const n of [
      'load',
      'loadData',
      'fetch_users',
      'SaveState',
      'uploadFile',
      'parseCSV',
      'syncAll',
      'requestToken',
      'submitForm',
      'sendMessage',
      'import2',
    ])
      assert.equal(isRiskyName(n), true, n);
    for (const n of ['loader', 'ready', 'render', 'handleLoad', 'onload', 'saved', 'importance', 'sending']) assert.equal(isRiskyName(n), false, n);
  });
});
