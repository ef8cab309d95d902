/**
 * ES module builds of npm packages, as jsDelivr's `/+esm`, esm.sh, Skypack and unpkg's `?module` serve them.
 *
 * - Entry: the package's `exports` map (conditions `browser`, `module`, `import`, `default`, `production`), then
 *   `module`, then `main` (esbuild's resolver, run on the package's files written to a private temp folder), or a
 *   subpath (`react-dom/client`, `lodash/merge`, `dist/x.js`: the exports map first, then a file path).
 * - Bundled: the package's own files (one output module, minified, license comments at the end,
 *   `process.env.NODE_ENV` = "production", `global` = `globalThis`).
 * - External: every other package, rewritten to the same CDN's canonical URL for the exact version its range
 *   (the dependent's `dependencies`, `peerDependencies` or `optionalDependencies`, a `?deps=` override, or
 *   `latest` when undeclared) resolves to — pinned like every resolution, so two dependents with the same range
 *   import one URL and the page gets one instance (one React).
 * - Node built-ins (`fs`, `node:path`…) the browser field does not map away become empty modules.
 * - CommonJS entries (react 18) get named exports: cjs-module-lexer (what Node uses) finds them, following
 *   `module.exports = require('./x')` re-exports inside the package; `default` is `module.exports` (or
 *   `exports.default` for `__esModule` modules), as esbuild's interop and esm.sh do. UMD/IIFE scripts whose
 *   names the lexer cannot see get only `default`.
 * - Safety: every path esbuild resolves must stay inside the package's temp folder (a package importing
 *   `/etc/passwd` or `../../x` fails to build), nothing outside is read, and the folder is removed afterwards.
 * - Determinism: same package bytes + same pins + same esbuild version → the same bytes (the cache key carries
 *   esbuild's version and {@link BUILDER_VERSION}).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { insideTree } from '../lib/paths.js';
import * as esbuild from 'esbuild';
import * as lexer from 'cjs-module-lexer';
import { findFile, type Pkg } from './packages.js';
import { NotFoundError, UnavailableError } from './registry.js';

/** Bump when the builder's output changes for the same input (part of every build cache key). */
export const BUILDER_VERSION = 2;
export const ESBUILD_VERSION = esbuild.version;

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const SKIP_WRITE = /(\.map|\.md|\.markdown|\.d\.[cm]?ts|\.tsbuildinfo)$/i;

export interface EsmBuildResult {
  code: Buffer;
  /** Export names of the module (from esbuild's metafile). */
  exports: string[];
  /** The file the build started from, inside the package. */
  entry: string;
  format: 'esm' | 'cjs' | 'script';
}

export interface EsmBuildOptions {
  pkg: Pkg;
  /** null = the package's main entry. */
  subpath: string | null;
  /** The canonical URL of an exact dependency version (and subpath) on the same CDN. */
  depUrl: (name: string, version: string, subpath: string | null) => string;
  /** Exact version for a dependency range; null when it cannot be resolved (the import then keeps the range). */
  resolveDep: (name: string, range: string) => Promise<string | null>;
  /** `?deps=` overrides: package → range or version. */
  deps: Record<string, string>;
  /** Folder for temporary build trees (inside the cache). */
  tmpRoot: string;
}

/** Split a bare specifier into package name and subpath (`@a/b/c/d` → `@a/b`, `c/d`). */
export function splitSpecifier(spec: string): { name: string; subpath: string | null } {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, n).join('/');
  const rest = parts.slice(n).join('/');
  return { name, subpath: rest === '' ? null : rest };
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * What `require("<other package>")` returns inside a CommonJS package: the dependency is an ES module at `url`
 * (imported statically, so it loads before the bundle runs); require() gets its `default` when that is the
 * CommonJS `module.exports` of one of our builds (every named export is a property of it), else the namespace.
 */
const REQUIRE_SHIM = (url: string) =>
  `var n = require(${JSON.stringify('webgrade-esm:' + url)}).ns;\n` +
  `var d = n.default;\n` +
  `module.exports = d != null && (typeof d === "object" || typeof d === "function") && Object.keys(n).every(function (k) { return k === "default" || d[k] === n[k]; }) ? d : n;\n`;

/** Export names of a CommonJS file, following re-exports inside the package (depth-limited). */
async function cjsExportNames(pkg: Pkg, file: string, seen = new Set<string>()): Promise<{ names: Set<string>; cjs: boolean }> {
  const names = new Set<string>();
  if (seen.has(file) || seen.size > 50) return { names, cjs: true };
  seen.add(file);
  const src = await pkg.read(file);
  if (!src) return { names, cjs: true };
  let parsed: { exports: string[]; reexports: string[] };
  try {
    parsed = lexer.parse(src.toString('utf8'));
  } catch {
    return { names, cjs: false }; // import/export syntax: an ES module
  }
  for (const e of parsed.exports) names.add(e);
  for (const r of parsed.reexports) {
    if (!r.startsWith('.')) continue; // another package: its names are not followed
    const target = findFile(pkg, join(dirname(file), r).split(sep).join('/'));
    if (!target) continue;
    const sub = await cjsExportNames(pkg, target, seen);
    for (const e of sub.names) names.add(e);
  }
  return { names, cjs: true };
}

export async function buildEsm(opts: EsmBuildOptions): Promise<EsmBuildResult> {
  const { pkg } = opts;
  // real path: esbuild reports resolved paths as real paths, and `inside` compares them with this one
  const root = join(realpathSync(opts.tmpRoot), `build-${process.pid}-${randomBytes(6).toString('hex')}`);
  const pkgDir = join(root, 'node_modules', ...pkg.name.split('/'));
  try {
    for (const path of Object.keys(pkg.manifest.files)) {
      if (SKIP_WRITE.test(path) && path !== 'package.json') continue;
      const bytes = await pkg.read(path);
      if (!bytes) continue;
      const dest = join(pkgDir, ...path.split('/'));
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, bytes, { flag: 'wx' });
    }
    return await buildIn(opts, root, pkgDir);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function inside(dir: string, path: string): boolean {
  return insideTree(resolve(path), resolve(dir));
}

async function buildIn(opts: EsmBuildOptions, root: string, pkgDir: string): Promise<EsmBuildResult> {
  const { pkg } = opts;
  const label = `${pkg.name}@${pkg.version}${opts.subpath ? '/' + opts.subpath : ''}`;
  const common: esbuild.BuildOptions = {
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'silent',
    conditions: ['browser', 'module', 'production'],
    mainFields: ['module', 'main'],
    define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    loader: {
      '.css': 'empty',
      '.json': 'json',
      '.txt': 'text',
      '.png': 'empty',
      '.jpg': 'empty',
      '.gif': 'empty',
      '.svg': 'empty',
      '.woff': 'empty',
      '.woff2': 'empty',
      '.ttf': 'empty',
      '.eot': 'empty',
      '.wasm': 'empty',
      '.node': 'empty',
      '.html': 'text',
    },
  };

  // 1. the entry file
  const spec = opts.subpath ? `${pkg.name}/${opts.subpath}` : pkg.name;
  let entryAbs: string | null = null;
  await esbuild.build({
    ...common,
    metafile: false,
    stdin: { contents: '', resolveDir: root },
    plugins: [
      {
        name: 'webgrade-entry',
        setup(b) {
          b.onStart(async () => {
            const r = await b.resolve(spec, { kind: 'import-statement', resolveDir: root });
            if (r.errors.length === 0 && r.path && !r.external) entryAbs = r.path;
          });
        },
      },
    ],
  });
  if (!entryAbs && opts.subpath) {
    const f = findFile(pkg, opts.subpath);
    if (f) entryAbs = join(pkgDir, ...f.split('/'));
  }
  if (!entryAbs || !inside(pkgDir, entryAbs)) {
    throw new NotFoundError(
      opts.subpath
        ? `${pkg.name}@${pkg.version} has no module or file "${opts.subpath}"`
        : `${pkg.name}@${pkg.version} has no entry point (no exports, module or main, nor index.js)`,
    );
  }
  const entry = relative(pkgDir, entryAbs).split(sep).join('/');

  // 2. its format; CommonJS gets a wrapper with the lexer's named exports
  await lexer.init();
  const { names, cjs } = await cjsExportNames(pkg, entry);
  let format: EsmBuildResult['format'] = 'esm';
  let entryOptions: Pick<esbuild.BuildOptions, 'entryPoints' | 'stdin'>;
  if (cjs && !/\.mjs$/.test(entry) && !(pkg.json.type === 'module' && /\.js$/.test(entry))) {
    const src = (await pkg.read(entry))?.toString('utf8') ?? '';
    format = names.size > 0 || /\b(module\.exports|exports\.|require\s*\()/.test(src) ? 'cjs' : 'script';
    const lines = [`import * as __m from ${JSON.stringify(entryAbs)};`, 'export default __m.default;'];
    let i = 0;
    for (const n of [...names].sort()) {
      if (n === 'default' || n === '__esModule') continue;
      const local = `__e${i++}`;
      lines.push(`const ${local} = __m[${JSON.stringify(n)}];`);
      lines.push(`export { ${local} as ${IDENT.test(n) ? n : JSON.stringify(n)} };`);
    }
    entryOptions = { stdin: { contents: lines.join('\n') + '\n', resolveDir: root, sourcefile: '__webgrade_entry.js' } };
  } else {
    entryOptions = { entryPoints: [entryAbs] };
  }

  // 3. the build, dependencies external
  const unresolved: string[] = [];
  const plugin: esbuild.Plugin = {
    name: 'webgrade-externals',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner || args.kind === 'entry-point') return undefined;
        const p = args.path;
        if (args.namespace === 'webgrade-esm') return { path: p, external: true };
        if (p.startsWith('webgrade-esm:')) return { path: p.slice('webgrade-esm:'.length), namespace: 'webgrade-esm' };
        const bare = !(p.startsWith('.') || p.startsWith('/') || p.startsWith('#') || /^[a-zA-Z]:[\\/]/.test(p));
        if (bare && /^[a-z][a-z0-9+.-]*:/i.test(p) && !p.startsWith('node:')) return { path: p, external: true }; // https:, data:
        if (bare) {
          const { name, subpath } = splitSpecifier(p);
          // A package that imports itself by name from another of its entry points (`preact/hooks` imports
          // `preact`): that entry point's own canonical URL, never a second copy bundled in (one Preact, one React).
          if (name === pkg.name && (subpath ?? '') !== (opts.subpath ?? '')) {
            const url = opts.depUrl(name, pkg.version, subpath);
            if (args.kind === 'require-call' || args.kind === 'require-resolve') return { path: `${url}.cjs`, namespace: 'webgrade-req' };
            return { path: url, external: true };
          }
          if (name !== pkg.name) {
            const declared = pkg.json.dependencies?.[name] ?? pkg.json.peerDependencies?.[name] ?? pkg.json.optionalDependencies?.[name];
            if (BUILTINS.has(p) || (BUILTINS.has(name) && !declared)) return { path: p, namespace: 'webgrade-empty' };
            const range = opts.deps[name] ?? declared ?? 'latest';
            const version = await opts.resolveDep(name, range);
            if (!version) unresolved.push(`${name}@${range}`);
            const url = opts.depUrl(name, version ?? range, subpath);
            // require() of another package: a CommonJS shim over the ES module (see REQUIRE_SHIM)
            // (named `<url>.cjs`: esbuild decides module kinds by extension, and `.mjs` would make the shim ESM)
            if (args.kind === 'require-call' || args.kind === 'require-resolve') return { path: `${url}.cjs`, namespace: 'webgrade-req' };
            return { path: url, external: true };
          }
        }
        const r = await b.resolve(p, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { inner: true } });
        if (r.errors.length > 0) return { errors: r.errors };
        if (r.external || r.namespace !== 'file') return r;
        if (!inside(pkgDir, r.path)) return { errors: [{ text: `"${p}" resolves outside the package` }] };
        return { path: r.path, sideEffects: r.sideEffects };
      });
      b.onLoad({ filter: /.*/, namespace: 'webgrade-empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
      b.onLoad({ filter: /.*/, namespace: 'webgrade-req' }, (args) => ({
        contents: REQUIRE_SHIM(args.path.slice(0, -'.cjs'.length)),
        loader: 'js',
        resolveDir: root,
      }));
      b.onLoad({ filter: /.*/, namespace: 'webgrade-esm' }, (args) => ({
        contents: `import * as ns from ${JSON.stringify(args.path)};\nexport { ns };\n`,
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
  let result: esbuild.BuildResult & { metafile: esbuild.Metafile; outputFiles: esbuild.OutputFile[] };
  try {
    result = (await esbuild.build({ ...common, ...entryOptions, outfile: join(root, 'out.js'), plugins: [plugin] })) as typeof result;
  } catch (err) {
    const e = err as { errors?: Array<{ text: string }> };
    const first = e.errors?.[0]?.text ?? (err as Error).message;
    throw new UnavailableError(`cannot build an ES module of ${label}: ${first.split('\n')[0]}`);
  }
  const out = result.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!out) throw new UnavailableError(`cannot build an ES module of ${label}: no output`);
  const meta = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined || o.exports.length >= 0);
  const exports = [...(meta?.exports ?? [])].sort();
  const header = `/**\n * ${label} as an ES module, built by webgrade (esbuild ${esbuild.version}) from ${entry} (${format}).\n${unresolved.length ? ` * Unresolved dependencies: ${unresolved.join(', ')}\n` : ''} */\n`;
  return { code: Buffer.concat([Buffer.from(header), Buffer.from(out.contents)]), exports, entry, format };
}
