/**
 * Loading an artifact: which files belong to it, read and decoded at once (bad input fails here).
 *
 * A single file is an artifact of exactly one file: its siblings on disk are not part of it, are not served and
 * count as missing when referenced. A folder artifact holds every file below it except hidden entries and
 * `node_modules` (at most MAX_FILES files).
 *
 * What belongs to an artifact (a security rule: a page must never read a file the user did not give it). The
 * root is taken by its real path. A file is part of the artifact only when it is a regular file whose real path
 * lies inside the real root: a symbolic link is followed only when its target is such a file (or a folder inside
 * the root, each real folder walked once, so link loops end); links that leave the root, device files, FIFOs,
 * sockets and anything under /proc, /sys or /dev are left out and listed in `refused` with the reason. A
 * single-file artifact whose entry is a link is followed only to an .html/.htm file (a folder of links to pages
 * is a common way to take a sample); a link to anything else is bad input. Files are read with
 * `readArtifactFile`, which opens the verified real path without following links and checks again that it is a
 * regular file, so a file swapped for a link after loading is not read either. The loopback server and the
 * metrics that read bytes (media) use the same function.
 *
 * Which files are read as text: HTML, CSS and JS files (by extension) and the entry page always, whatever bytes
 * they hold, because the browser runs them whatever bytes they hold: a file the metrics and judges did not read
 * while the page ran it would hide its code from them (a `//\0` at the top of app.js hid it). A NUL byte in such
 * a file is named as a defect in the file's `notes` (which the source metrics report in their details), never a
 * reason to leave the file out. SVG and data files are read as text unless they look binary (a NUL byte in their
 * first 8 KiB). Interpretation of "a binary file" as input (SPEC "Behaviour users expect"): an entry page with a
 * NUL byte in its first 8 KiB and no HTML markup at all (no tag, doctype or comment), such as an image saved under
 * a page's name; an entry page with markup is a page, and its NUL bytes are a defect of it. Code files over
 * MAX_TEXT_BYTES are not read as text (a note says so); the entry page over it is bad input.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { InputError, errorMessage } from '../../core/errors.js';
import { countLines } from '../text.js';
import { decodeText, looksBinary } from './decode.js';
import { LoadedArtifact } from './loaded.js';
import type { Artifact, ArtifactFile, FileKind } from '../../core/artifact/model.js';
import { insideTree } from '../paths.js';

const MAX_FILES = 5000;
const MAX_TEXT_BYTES = 20 * 1024 * 1024;

const KIND_BY_EXT: Record<string, FileKind> = {
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.css': 'css',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.svg': 'svg',
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.gif': 'image',
  '.webp': 'image',
  '.avif': 'image',
  '.ico': 'image',
  '.bmp': 'image',
  '.mp4': 'video',
  '.webm': 'video',
  '.ogv': 'video',
  '.mov': 'video',
  '.mp3': 'audio',
  '.wav': 'audio',
  '.ogg': 'audio',
  '.m4a': 'audio',
  '.flac': 'audio',
  '.woff': 'font',
  '.woff2': 'font',
  '.ttf': 'font',
  '.otf': 'font',
  '.eot': 'font',
  '.json': 'data',
  '.txt': 'data',
  '.md': 'data',
  '.csv': 'data',
  '.xml': 'data',
  '.webmanifest': 'data',
};

const TEXT_KINDS = new Set<FileKind>(['html', 'css', 'js', 'svg', 'data']);
/** The kinds a browser runs or renders as code: always read as text (module comment). */
const CODE_KINDS = new Set<FileKind>(['html', 'css', 'js']);

export function fileKind(path: string): FileKind {
  return KIND_BY_EXT[extname(path).toLowerCase()] ?? 'other';
}

function statOrFail(p: string): Stats {
  try {
    return statSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new InputError(`${p}: no such file or folder`);
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${p}: permission denied`);
    throw new InputError(`${p}: cannot read (${errorMessage(err)})`);
  }
}

function readOrFail(p: string): Buffer {
  try {
    return readArtifactFile({ absPath: p });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${p}: permission denied`);
    if (code === 'EISDIR') throw new InputError(`${p}: is a folder, expected a file`);
    throw new InputError(`${p}: cannot read (${errorMessage(err)})`);
  }
}

const SYSTEM_TREES = ['/proc', '/sys', '/dev'];

/** Why `real` (a real path) may not be part of an artifact rooted at the real path `root`, or null. */
export function outsideReason(real: string, root: string): string | null {
  if (SYSTEM_TREES.some((t) => insideTree(real, t))) return `a link into ${real.split(sep).slice(0, 2).join(sep)} (system files are never served)`;
  if (!insideTree(real, root)) return 'a link to a file outside the artifact folder';
  return null;
}

interface Listed {
  /** Artifact-relative path. */
  rel: string;
  /** Verified real path. */
  real: string;
}

function listFolder(root: string, refused: Artifact['refused']): Listed[] {
  const out: Listed[] = [];
  const seenDirs = new Set<string>([root]);
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (err) {
      if (rel === '') throw new InputError(`${dir}: cannot list folder (${errorMessage(err)})`);
      return;
    }
    for (const name of names.sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      let lst: Stats;
      try {
        lst = lstatSync(abs);
      } catch {
        continue;
      }
      let real = abs;
      let st = lst;
      if (lst.isSymbolicLink()) {
        try {
          real = realpathSync(abs);
          st = statSync(real);
        } catch (err) {
          refused.push({ path: r, reason: `a dangling or looping link (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})` });
          continue;
        }
        const why = outsideReason(real, root);
        if (why) {
          refused.push({ path: r, reason: why });
          continue;
        }
      }
      if (st.isDirectory()) {
        if (seenDirs.has(real)) continue; // a link back to a folder already walked
        seenDirs.add(real);
        walk(real, r);
      } else if (st.isFile()) {
        out.push({ rel: r, real });
        if (out.length > MAX_FILES) throw new InputError(`${root}: more than ${MAX_FILES} files; is this really one web app?`);
      } else refused.push({ path: r, reason: 'not a regular file (device, FIFO or socket)' });
    }
  };
  walk(root, '');
  return out;
}

/**
 * Read an artifact file's bytes: its verified real path, opened without following a link, and only when it is
 * still a regular file (see the module comment). Throws like readFileSync when it cannot.
 */
export function readArtifactFile(file: Pick<ArtifactFile, 'absPath'>): Buffer {
  const fd = openSync(file.absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${file.absPath}: not a regular file`), { code: 'EINVAL' });
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === st.size ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

function loadFile(listed: Listed, isEntry: boolean): ArtifactFile {
  const rel = listed.rel;
  const absPath = listed.real;
  const kind = fileKind(rel);
  const st = statOrFail(absPath);
  const file: ArtifactFile = { path: rel, absPath, size: st.size, kind };
  const code = isEntry || CODE_KINDS.has(kind);
  if (TEXT_KINDS.has(kind) || isEntry) {
    if (st.size > MAX_TEXT_BYTES) {
      if (isEntry) throw new InputError(`${absPath}: larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB`);
      if (code) file.notes = [`not read as text: larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB (no metric reads its code)`];
      return file;
    }
    let buf: Buffer;
    try {
      buf = readOrFail(absPath);
    } catch (err) {
      if (isEntry) throw err;
      return file; // an unreadable side file is reported by the metrics that reference it
    }
    if (isEntry && (buf.length === 0 || buf.toString('latin1').trim() === '')) throw new InputError(`${absPath}: file is empty`);
    // Code is read as text whatever it holds (module comment); a binary-looking SVG or data file is left unread.
    if (!code && looksBinary(buf)) return file;
    const { text, encoding } = decodeText(buf);
    if (isEntry && looksBinary(buf) && !hasMarkup(text)) throw new InputError(`${absPath}: is a binary file, not HTML`);
    file.text = text;
    file.encoding = encoding;
    const nul = code ? nulBytes(text) : null;
    if (nul) file.notes = [nul];
  }
  return file;
}

/** Does the text hold HTML markup (a tag, a doctype or a comment)? */
function hasMarkup(text: string): boolean {
  return /<(?:!doctype|!--|\/?[a-z][a-z0-9-]*[\s/>])/i.test(text);
}

/** The defect note of code that holds NUL characters, or null. */
function nulBytes(text: string): string | null {
  const first = text.indexOf('\0');
  if (first < 0) return null;
  let n = 0;
  for (let i = first; i >= 0; i = text.indexOf('\0', i + 1)) n++;
  const line = countLines(text.slice(0, first + 1));
  return `${n} NUL byte${n === 1 ? '' : 's'} (the first on line ${line}): not text, a defect of the file; read and scored as text all the same`;
}

/** The files of an artifact by the rule of the module comment, without reading them. */
export interface ArtifactListing {
  root: string;
  entry: string;
  kind: Artifact['kind'];
  /** Each file's path inside the artifact and its verified real path (read it with `readArtifactFile`). */
  files: Array<{ rel: string; real: string }>;
  refused: Artifact['refused'];
}

/**
 * List an artifact's files (the rule of the module comment) without reading them: `loadArtifact` and everything
 * else that ships or hashes an artifact's files (the queue) use it. Throws InputError for bad input.
 */
export function listArtifact(input: string): ArtifactListing {
  const abs = resolve(input);
  const st = statOrFail(abs);
  let root: string;
  let entry: string;
  let listed: Listed[];
  let kind: Artifact['kind'];
  const refused: Artifact['refused'] = [];
  if (st.isDirectory()) {
    root = realpathSync(abs);
    if (SYSTEM_TREES.some((t) => insideTree(root, t))) throw new InputError(`${input}: is a system folder, not a web app`);
    listed = listFolder(root, refused);
    if (!listed.some((l) => l.rel === 'index.html')) {
      const why = refused.find((r) => r.path === 'index.html');
      throw new InputError(`${input}: folder has no index.html${why ? ` (index.html is ${why.reason})` : ''}`);
    }
    entry = 'index.html';
    kind = 'folder';
  } else if (st.isFile()) {
    const real = realpathSync(abs);
    const why = outsideReason(real, realpathSync(dirname(abs)));
    // A link to an HTML file elsewhere is followed (folders of links to pages are a common way to pick a
    // sample); a link to anything else (/proc/self/environ, a key file) is refused. Only that one file is served.
    if (why && (!/\.html?$/i.test(real) || SYSTEM_TREES.some((t) => insideTree(real, t))))
      throw new InputError(`${input}: is ${why}, and not to an HTML file; give the file itself`);
    root = dirname(real);
    entry = basename(abs);
    listed = [{ rel: entry, real }];
    kind = 'file';
  } else {
    throw new InputError(`${input}: not a regular file or folder`);
  }
  return { root, entry, kind, files: listed, refused };
}

/** Load an artifact from a path; throws InputError with one clear line for bad input. */
export function loadArtifact(input: string): Artifact {
  const { root, entry, kind, files: listed, refused } = listArtifact(input);
  const files = listed.map((l) => loadFile(l, l.rel === entry));
  return new LoadedArtifact(input, root, entry, kind, files, refused);
}
