/**
 * A project's sources as the artifact the metrics read (SPEC "Inputs": static metrics read the source, not the
 * bundle). The browser is given the build's output instead (`Artifact.served`, gather/server.ts).
 *
 * Which files: every regular file of the project except `node_modules`, `.git`, hidden entries, lockfiles and
 * the old output folders (`dist`, `build`, `out`, or the one package.json names), by the artifact rule of
 * lib/artifact/load.ts (links followed only to files inside the project; at most MAX_FILES). Component files are
 * code: `.jsx`, `.tsx`, `.ts`, `.mts`, `.cts` are JavaScript (`kind: 'js'`), `.vue` and `.svelte` are markup
 * (`kind: 'html'`), so the lines of all of them are L of `console-errors` and `lint`, and `comment-rate` reads
 * their comments with the JS and HTML rules.
 *
 * Blocks (what the JS and CSS metrics parse), each at its place in its file:
 * - HTML files: their inline and linked blocks, as for any page (core/artifact/extract.ts);
 * - `.js`/`.mjs`/`.cjs` and `.css` files: the file;
 * - `.jsx`, `.ts`, `.tsx`, `.mts`, `.cts`: the file as JavaScript, through Sucrase (JSX to `jsx()` calls, types
 *   removed), which keeps every line where it was, so the metrics' line numbers are the file's; the metrics that
 *   walk a JavaScript tree (acorn) read this. `lint` reads the file itself with ESLint's parsers for it
 *   (metrics/lib/lint/framework-eslint.ts);
 * - `.vue`: the `<script>` and `<script setup>` blocks (TypeScript through Sucrase) and the plain-CSS `<style>`
 *   blocks, found by Vue's own SFC parser (`@vue/compiler-sfc`); a `<style lang="scss">` (or less, stylus) is not
 *   CSS and is left out, with a note;
 * - `.svelte`: the instance and module scripts and the style, found by Svelte's own parser (`svelte/compiler`).
 *
 * References (`resource-validity`): as for a folder, and a file under `public/` is also found at the root, where
 * Vite, Create React App and Vue CLI serve it.
 *
 * The entry page (static DOM for `copywriting` and `component-consistency`) is the project's `index.html`
 * (Vite's), else `public/index.html` (Create React App's), else `src/index.html`: the page as written, before its
 * scripts render anything, as for any page whose text is written by scripts. A project without any is given an
 * empty entry page, named in the notes.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { transform } from 'sucrase';
import { parse as parseVue } from '@vue/compiler-sfc';
import { parse as parseSvelte } from 'svelte/compiler';
import { decodeText } from '../lib/artifact/decode.js';
import { extractCssUrls, extractFromHtml } from '../lib/artifact/extract.js';
import { fileKind, readArtifactFile } from '../lib/artifact/load.js';
import { LoadedArtifact } from '../lib/artifact/loaded.js';
import type { ArtifactFile, FileKind, ResourceRef, SourceBlock } from '../core/artifact/model.js';
import { parseTree, treeDepth } from '../lib/artifact/parse.js';
import { errorMessage, InputError } from '../core/errors.js';
import { LOCKFILES } from './lockfile.js';
import { USUAL_OUTPUTS } from './output.js';

const MAX_FILES = 5000;
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** Component files and the kind the metrics read them as (module comment). */
export const COMPONENT_KINDS: Record<string, FileKind> = {
  '.jsx': 'js',
  '.tsx': 'js',
  '.ts': 'js',
  '.mts': 'js',
  '.cts': 'js',
  '.vue': 'html',
  '.svelte': 'html',
};
const TEXT_KINDS = new Set<FileKind>(['html', 'css', 'js', 'svg', 'data']);
const ENTRIES = ['index.html', 'public/index.html', 'src/index.html'];
/** Where the entry comes from when the project has no `index.html` in its sources. */
export const NO_ENTRY = 'index.html';

function extOf(path: string): string {
  const m = /\.[^./]+$/.exec(path);
  return m ? m[0].toLowerCase() : '';
}

function kindOf(path: string): FileKind {
  return COMPONENT_KINDS[extOf(path)] ?? fileKind(path);
}

function listSources(root: string, skipTop: ReadonlySet<string>, hidden = false): Array<{ rel: string; real: string }> {
  const out: Array<{ rel: string; real: string }> = [];
  const seen = new Set<string>([root]);
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if ((name.startsWith('.') && (!hidden || name === '.git')) || name === 'node_modules' || (rel === '' && skipTop.has(name))) continue;
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      let st: Stats;
      let real = abs;
      try {
        st = lstatSync(abs);
        if (st.isSymbolicLink()) {
          real = realpathSync(abs);
          if (real !== root && !real.startsWith(root + sep)) continue;
          st = statSync(real);
        }
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (seen.has(real)) continue;
        seen.add(real);
        walk(real, r);
      } else if (st.isFile()) {
        out.push({ rel: r, real });
        if (out.length > MAX_FILES) throw new InputError(`${root}: more than ${MAX_FILES} source files`);
      }
    }
  };
  walk(root, '');
  return out;
}

function readSource(l: { rel: string; real: string }): ArtifactFile {
  const kind = kindOf(l.rel);
  const st = statSync(l.real);
  const file: ArtifactFile = { path: l.rel, absPath: l.real, size: st.size, kind };
  if (!TEXT_KINDS.has(kind)) return file;
  if (st.size > MAX_TEXT_BYTES) {
    file.notes = [`not read as text: larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB`];
    return file;
  }
  const { text, encoding } = decodeText(readArtifactFile(file));
  file.text = text;
  file.encoding = encoding;
  return file;
}

/** 1-based line and column of `offset` in `text`. */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return { line, column: offset - last };
}

/** JavaScript with every line where it was (module comment), from JSX and TypeScript. */
export function asJavaScript(text: string, jsx: boolean, typescript: boolean): string {
  const transforms: Array<'jsx' | 'typescript'> = [];
  if (jsx) transforms.push('jsx');
  if (typescript) transforms.push('typescript');
  if (!transforms.length) return text;
  return transform(text, { transforms, jsxRuntime: 'automatic', production: true, disableESTransforms: true, keepUnusedImports: true }).code;
}

function scriptBlock(f: ArtifactFile, text: string, line: number, column: number, lang: string | undefined): SourceBlock {
  const ts = lang === 'ts' || lang === 'tsx';
  return { language: 'js', origin: 'inline', file: f.path, line, column, text: asJavaScript(text, lang === 'tsx' || lang === 'jsx', ts), module: true };
}

function vueBlocks(f: ArtifactFile, sources: SourceBlock[], notes: string[]): void {
  const { descriptor, errors } = parseVue(f.text!, { filename: f.path, sourceMap: false });
  if (errors.length) notes.push(`Vue's parser: ${errorMessage(errors[0])}`);
  for (const s of [descriptor.script, descriptor.scriptSetup]) if (s) sources.push(scriptBlock(f, s.content, s.loc.start.line, s.loc.start.column, s.lang));
  for (const st of descriptor.styles) {
    if (st.lang && st.lang !== 'css') notes.push(`a <style lang="${st.lang}"> block (line ${st.loc.start.line}) is not CSS and is not read`);
    else sources.push({ language: 'css', origin: 'inline', file: f.path, line: st.loc.start.line, column: st.loc.start.column, text: st.content });
  }
}

interface SvelteNode {
  start: number;
  end: number;
  attributes?: Array<{ name: string; value?: unknown }>;
  content?: { start: number; end: number; styles?: string };
}

function svelteBlocks(f: ArtifactFile, sources: SourceBlock[], notes: string[]): void {
  const text = f.text!;
  const root = parseSvelte(text, { modern: true }) as unknown as { instance?: SvelteNode; module?: SvelteNode; css?: SvelteNode };
  for (const s of [root.module, root.instance]) {
    if (!s) continue;
    const open = text.indexOf('>', s.start) + 1;
    const close = text.lastIndexOf('</script', s.end);
    const langAttr = s.attributes?.find((a) => a.name === 'lang')?.value;
    const lang = Array.isArray(langAttr) ? (langAttr[0] as { data?: string })?.data : undefined;
    const at = position(text, open);
    sources.push(scriptBlock(f, text.slice(open, close), at.line, at.column, lang));
  }
  const css = root.css;
  if (css?.content) {
    const langAttr = css.attributes?.find((a) => a.name === 'lang')?.value;
    const lang = Array.isArray(langAttr) ? (langAttr[0] as { data?: string })?.data : undefined;
    if (lang && lang !== 'css') notes.push(`a <style lang="${lang}"> block is not CSS and is not read`);
    else {
      const at = position(text, css.content.start);
      sources.push({ language: 'css', origin: 'inline', file: f.path, line: at.line, column: at.column, text: text.slice(css.content.start, css.content.end) });
    }
  }
}

/** The blocks and references of a project's sources (module comment). */
export function projectParse(files: readonly ArtifactFile[], entry: string): { sources: SourceBlock[]; resources: ResourceRef[]; depth: number } {
  const sources: SourceBlock[] = [];
  const resources: ResourceRef[] = [];
  // Vite, Create React App and Vue CLI serve `public/x` at `/x`: a reference to it finds the file.
  const fileSet = new Set(files.flatMap((f) => (f.path.startsWith('public/') ? [f.path, f.path.slice('public/'.length)] : [f.path])));
  let depth = 0;
  for (const f of files) {
    if (f.text === undefined) continue;
    const ext = extOf(f.path);
    const notes: string[] = [];
    try {
      if (ext === '.vue') vueBlocks(f, sources, notes);
      else if (ext === '.svelte') svelteBlocks(f, sources, notes);
      else if (f.kind === 'html') {
        const tree = parseTree(f.text);
        if (f.path === entry) depth = treeDepth(tree);
        extractFromHtml(f, tree, fileSet, sources, resources);
      } else if (f.kind === 'css') sources.push({ language: 'css', origin: 'file', file: f.path, line: 1, column: 1, text: f.text });
      else if (f.kind === 'js') {
        const text = asJavaScript(f.text, ext === '.jsx' || ext === '.tsx', ext === '.ts' || ext === '.tsx' || ext === '.mts' || ext === '.cts');
        sources.push({ language: 'js', origin: 'file', file: f.path, line: 1, column: 1, text, module: ext !== '.cjs' });
      }
    } catch (err) {
      notes.push(`not read as code: its parser failed (${errorMessage(err).split('\n')[0]})`);
    }
    if (notes.length) f.notes = [...(f.notes ?? []), ...notes];
  }
  for (const block of sources) if (block.language === 'css') extractCssUrls(block, fileSet, resources);
  return { sources, resources, depth };
}

/** The source view of a project: a LoadedArtifact whose parse is `projectParse`'s, made on first use. */
export class ProjectSourceArtifact extends LoadedArtifact {
  private own = false;
  /** The output folder package.json names (left out of the sources, as `dist` is). */
  output?: string;

  private ensure(): void {
    if (this.own) return;
    this.own = true;
    let parse;
    try {
      parse = projectParse(this.files, this.entry);
    } catch (err) {
      this.failParse(`the project's sources could not be parsed (${errorMessage(err)})`);
      return;
    }
    this.adoptParse(parse.sources, parse.resources, parse.depth);
  }

  override get sources(): SourceBlock[] {
    this.ensure();
    return super.sources;
  }
  override set sources(value: SourceBlock[]) {
    super.sources = value;
  }
  override get resources(): ResourceRef[] {
    this.ensure();
    return super.resources;
  }
  override set resources(value: ResourceRef[]) {
    super.resources = value;
  }
  override get dom() {
    this.ensure();
    return super.dom;
  }
  override set dom(value) {
    super.dom = value;
  }
}

/** Every file a project is made of (hidden ones too, but not `.git` or `node_modules`), for a queue job to carry. */
export function listProjectFiles(dir: string): Array<{ rel: string; real: string }> {
  return listSources(realpathSync(dir), new Set(), true);
}

/** Load a project's sources (module comment); `output` = the folder package.json names, left out like `dist`. */
export function loadProjectSource(dir: string, output?: string): ProjectSourceArtifact {
  const root = realpathSync(dir);
  const skip = new Set<string>([...USUAL_OUTPUTS, ...LOCKFILES, ...(output ? [output.split('/')[0]!] : [])]);
  const files = listSources(root, skip).map(readSource);
  let entry = ENTRIES.find((e) => files.some((f) => f.path === e));
  if (!entry) {
    entry = NO_ENTRY;
    files.unshift({
      path: NO_ENTRY,
      absPath: join(root, NO_ENTRY),
      size: 0,
      kind: 'html',
      text: '',
      notes: ['the project has no index.html among its sources: its static page is empty'],
    });
  }
  const artifact = new ProjectSourceArtifact(dir, root, entry, 'folder', files, []);
  if (output) artifact.output = output;
  return artifact;
}
