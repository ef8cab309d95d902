/** Fixture packages for the CDN tests, published to the local test registry. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CdnCache, type CdnAnswer, type CdnOptions } from '../../cdn/index.js';
import { startTestRegistry, type FixturePackage, type TestRegistry } from './registry-server.js';

export const FIXTURES: FixturePackage[] = [
  {
    name: 'selfref',
    version: '1.0.0',
    json: { exports: { '.': './index.mjs', './hooks': './hooks.mjs' } },
    files: { 'index.mjs': 'export const token = { made: "once" };\n', 'hooks.mjs': "import { token } from 'selfref';\nexport const tokenOfMain = token;\n" },
  },
  {
    name: 'tiny',
    version: '1.0.0',
    json: { main: 'index.js', jsdelivr: 'dist/tiny.js', unpkg: 'dist/tiny.js' },
    files: {
      'index.js': 'module.exports = "tiny 1.0.0 main";\n',
      'dist/tiny.js': 'window.tiny = "1.0.0";\n',
      'dist/tiny.min.js': 'window.tiny="1.0.0";',
      'style.css': 'body{color:red}',
      'data/x.json': '{"a":1}',
      'img/logo.svg': '<svg/>',
    },
  },
  {
    name: 'tiny',
    version: '1.1.0',
    json: { main: 'index.js', jsdelivr: 'dist/tiny.js', unpkg: 'dist/tiny.js' },
    files: { 'index.js': 'module.exports = "tiny 1.1.0 main";\n', 'dist/tiny.js': 'window.tiny = "1.1.0";\n', 'dist/tiny.min.js': 'window.tiny="1.1.0";' },
  },
  {
    name: 'browserish',
    version: '2.0.0',
    json: { browser: 'browser.js', main: 'main.js' },
    files: { 'browser.js': '/* browser */', 'main.js': '/* main */', 'pkg.wasm': Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]) },
  },
  { name: 'mainonly', version: '0.3.0', json: { main: './lib/entry' }, files: { 'lib/entry.js': '/* entry */' } },
  { name: 'nomin', version: '1.0.0', files: { 'lib/a.js': 'function add(first, second) {\n  return first + second;\n}\nwindow.add = add;\n' } },
  {
    name: 'cjs-lib',
    version: '1.0.0',
    json: { main: 'index.js' },
    files: {
      'index.js':
        "'use strict';\nif (process.env.NODE_ENV === 'production') {\n  module.exports = require('./cjs/prod.js');\n} else {\n  module.exports = require('./cjs/dev.js');\n}\n",
      'cjs/prod.js': "'use strict';\nexports.add = function (a, b) { return a + b; };\nexports.version = 'prod';\nexports['odd-name'] = 1;\n",
      'cjs/dev.js': "'use strict';\nexports.add = function (a, b) { return a + b; };\nexports.version = 'dev';\nexports['odd-name'] = 1;\n",
    },
  },
  {
    name: 'shared-core',
    version: '1.0.0',
    json: { main: 'index.js' },
    files: { 'index.js': "'use strict';\nvar token = {};\nexports.token = token;\nexports.name = 'shared-core@1.0.0';\n" },
  },
  {
    name: 'shared-core',
    version: '1.2.0',
    json: { main: 'index.js' },
    files: { 'index.js': "'use strict';\nvar token = {};\nexports.token = token;\nexports.name = 'shared-core@1.2.0';\n" },
  },
  {
    name: 'plugin-a',
    version: '1.0.0',
    json: { module: 'index.mjs', main: 'index.cjs', dependencies: { 'shared-core': '^1.0.0' } },
    files: {
      'index.mjs': "import { token, name } from 'shared-core';\nexport const coreOfA = token;\nexport const coreName = name;\nexport default 'plugin-a';\n",
      'index.cjs': 'module.exports = {};',
    },
  },
  {
    name: 'plugin-b',
    version: '1.0.0',
    json: { main: 'index.js', peerDependencies: { 'shared-core': '^1.0.0' } },
    files: { 'index.js': "'use strict';\nvar core = require('shared-core');\nexports.coreOfB = core.token;\nexports.coreName = core.name;\n" },
  },
  {
    name: 'esm-pkg',
    version: '1.0.0',
    json: {
      type: 'module',
      exports: { '.': { browser: './browser.js', import: './index.js', default: './index.cjs' }, './sub': './sub.js', './package.json': './package.json' },
      main: './index.cjs',
    },
    files: {
      'browser.js': "export const where = 'browser';\nexport default function hello() { return 'hi'; }\n",
      'index.js': "export const where = 'import';\n",
      'index.cjs': "exports.where = 'require';\n",
      'sub.js': 'export const sub = true;\n',
      'style.css': '.x{}',
    },
  },
  {
    name: 'chart.js',
    version: '3.7.1',
    json: { main: 'dist/chart.js' },
    files: { 'dist/chart.js': '/* chart 3.7.1 */', 'dist/chart.min.js': '/*chart 3.7.1 min*/' },
  },
  { name: 'foo-lib', version: '1.0.0', files: { 'build/umd/foo.min.js': '/* foo umd */', 'a/x.js': '/* a/x */', 'b/c/x.js': '/* b/c/x */' } },
  {
    name: '@fortawesome/fontawesome-free',
    version: '6.5.1',
    files: {
      'css/all.min.css':
        '.fa-solid{font-family:"Font Awesome 6 Free"}@font-face{font-family:"Font Awesome 6 Free";src:url(../webfonts/fa-solid-900.woff2) format("woff2")}',
      'css/all.css': '/* all */',
      'webfonts/fa-solid-900.woff2': Buffer.from('wOF2-solid'),
      'js/all.min.js': '/* fa 6.5.1 all.js */',
    },
  },
  { name: '@fortawesome/fontawesome-free', version: '5.15.4', files: { 'css/all.css': '/* fa 5 */', 'webfonts/fa-solid-900.woff2': Buffer.from('wOF2-5') } },
  { name: 'font-awesome', version: '4.7.0', files: { 'css/font-awesome.min.css': '/* fa4 */', 'fonts/fontawesome-webfont.woff2': Buffer.from('wOF2-4') } },
  {
    name: '@fontsource/inter',
    version: '5.0.0',
    files: {
      'metadata.json': JSON.stringify({
        id: 'inter',
        family: 'Inter',
        subsets: ['latin', 'latin-ext'],
        weights: [400, 700],
        styles: ['italic', 'normal'],
        variable: { wght: { default: '400', min: '100', max: '900', step: '1' } },
      }),
      'unicode.json': JSON.stringify({ 'latin-ext': 'U+0100-02AF,U+1E00-1EFF', latin: 'U+0000-00FF,U+2000-206F' }),
      'files/inter-latin-400-normal.woff2': 'w',
      'files/inter-latin-ext-400-normal.woff2': 'w',
      'files/inter-latin-700-normal.woff2': 'w',
      'files/inter-latin-ext-700-normal.woff2': 'w',
      'files/inter-latin-400-italic.woff2': 'w',
      'files/inter-latin-ext-400-italic.woff2': 'w',
    },
  },
  {
    name: '@fontsource-variable/inter',
    version: '5.0.0',
    files: {
      'metadata.json': JSON.stringify({
        id: 'inter',
        family: 'Inter',
        subsets: ['latin', 'latin-ext'],
        weights: [100, 900],
        styles: ['normal'],
        variable: { wght: { default: '400', min: '100', max: '900', step: '1' } },
      }),
      'unicode.json': JSON.stringify({ 'latin-ext': 'U+0100-02AF,U+1E00-1EFF', latin: 'U+0000-00FF,U+2000-206F' }),
      'files/inter-latin-wght-normal.woff2': 'v',
      'files/inter-latin-ext-wght-normal.woff2': 'v',
    },
  },
  {
    name: 'tailwindcss-cdn',
    version: '3.4.10',
    json: { main: 'tailwindcss.js' },
    files: {
      'tailwindcss.js': '/* tw 3.4.10 */',
      'tailwindcss-with-forms.js': '/* tw 3.4.10 forms */',
      'tailwindcss-with-typography.js': '/* tw 3.4.10 typography */',
      'tailwindcss-with-all-plugins.js': '/* tw 3.4.10 all */',
      '3.4.1/tailwindcss.js': '/* tw 3.4.1 */',
      '3.4.1/tailwindcss-with-typography.js': '/* tw 3.4.1 typography */',
      '3.4.1/tailwindcss-with-all-plugins.js': '/* tw 3.4.1 all */',
      '3.3.3/tailwindcss.js': '/* tw 3.3.3 */',
      '3.3.3/tailwindcss-with-line-clamp.js': '/* tw 3.3.3 line-clamp */',
    },
  },
  {
    name: '@highlightjs/cdn-assets',
    version: '11.9.0',
    files: { 'highlight.min.js': '/* hljs 11.9.0 */', 'styles/github.min.css': '/* github */', 'languages/python.min.js': '/* py */' },
  },
  {
    name: 'pyodide',
    version: '0.26.2',
    files: { 'pyodide.js': '/* pyodide */', 'pyodide.asm.wasm': Buffer.from([0, 97, 115, 109]), 'python_stdlib.zip': 'PK' },
  },
];

export interface Env {
  registry: TestRegistry;
  dir: string;
  cdn(opts?: Partial<CdnOptions>): CdnCache;
  close(): Promise<void>;
}

/** A test registry with the fixtures and a fresh cache folder. */
export async function setup(extra: FixturePackage[] = []): Promise<Env> {
  const registry = await startTestRegistry([...FIXTURES, ...extra]);
  const dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-test-'));
  return {
    registry,
    dir,
    cdn: (opts = {}) => new CdnCache({ dir, registry: registry.url, timeoutMs: 5000, ...opts }),
    close: async () => {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const GET = { method: 'GET' as const, headers: {} };

export function served(a: CdnAnswer): Extract<CdnAnswer, { kind: 'served' }> {
  if (a.kind !== 'served') throw new Error(`expected served, got ${a.kind}: ${a.reason}`);
  return a;
}

export const text = (a: CdnAnswer) => served(a).body.toString('utf8');
