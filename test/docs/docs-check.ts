/**
 * Reading the Markdown documentation (README.md and docs/**\/*.md) for its tests (test/docs/docs.test.ts) and
 * for `npm run docs:help`: the links and the anchors they point to, the fenced `console` blocks marked to run,
 * and the `--help` blocks of the commands.
 *
 * - Links: inline `[text](target)` and `![alt](target)` outside code; a target is a repository file (relative to
 *   the page) with an optional `#anchor`, or an anchor of the page itself; http(s) and mailto links are not
 *   followed. Anchors are GitHub's heading ids: lower case, punctuation other than `-` and `_` dropped, spaces
 *   to `-`, a repeated heading gets `-1`, `-2` ...
 * - Runnable examples: a ```console block preceded by the line `<!-- docs-test: run -->`. Lines starting with
 *   `$ ` are commands (`npx webgrade` runs the built CLI, from the repository root); the lines up to the next
 *   command are its expected output (stdout then stderr), compared line by line after trimming line ends; a line
 *   that is only `...` (or a table row whose cells are `...`) stands for any number of lines.
 * - Help blocks: `<!-- help:<command path> -->` + a ```text block + `<!-- /help:<command path> -->`, holding
 *   `webgrade <command path> --help` exactly.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { cliPath, repoRoot } from '../helpers.js';

/** README.md and every Markdown file under docs/, repository-relative. */
export function docFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(repoRoot, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(repoRoot, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** The text with fenced code blocks blanked (line count kept), for reading prose only. */
export function proseOnly(text: string): string {
  let fence: string | null = null;
  return text
    .split('\n')
    .map((line) => {
      const m = line.match(/^\s*(`{3,}|~{3,})/);
      if (m) {
        if (fence === null) fence = m[1]!;
        else if (m[1]!.startsWith(fence[0]!) && m[1]!.length >= fence.length) fence = null;
        return '';
      }
      return fence === null ? line : '';
    })
    .join('\n');
}

/** GitHub's anchor of a heading text. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text: its headings' ids (with GitHub's numbering of repeats) and `id`/`name` attributes. */
export function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseOnly(text).split('\n')) {
    const m = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const base = slug(m[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** The links of a page, outside code blocks and code spans. */
export function links(file: string): Link[] {
  const out: Link[] = [];
  proseOnly(readFileSync(join(repoRoot, file), 'utf8'))
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/`[^`]*`/g, '');
      for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ file, line: i + 1, target: m[1]! });
    });
  return out;
}

/** Why a link does not resolve, or null when it does. */
export function brokenLink(link: Link): string | null {
  if (/^(https?:|mailto:)/.test(link.target)) return null;
  const [path, anchor] = link.target.split('#') as [string, string | undefined];
  const target = path === '' ? join(repoRoot, link.file) : join(repoRoot, dirname(link.file), decodeURIComponent(path));
  if (relative(repoRoot, target).startsWith('..')) return `${link.target} leaves the repository`;
  if (!existsSync(target)) return `${link.target}: no such file`;
  if (anchor === undefined || anchor === '') return null;
  if (!target.endsWith('.md')) return `${link.target}: an anchor into a file that is not Markdown`;
  return anchors(readFileSync(target, 'utf8')).has(anchor) ? null : `${link.target}: no heading with that anchor`;
}

/** Absolute paths of one machine (its work folders, temporary files, home folders) in a page. */
export function machinePaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w.~-])\/(?:work|tmp|home|root|Users)\/(?:[^\s)`'"]*[^\s)`'",.;:])?/g)].map((m) => m[0]);
}

export interface ConsoleExample {
  file: string;
  line: number;
  command: string;
  expected: string[];
}

/** The commands of the ```console blocks marked `<!-- docs-test: run -->`, with the output each shows. */
export function consoleExamples(file: string): ConsoleExample[] {
  const lines = readFileSync(join(repoRoot, file), 'utf8').split('\n');
  const out: ConsoleExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '<!-- docs-test: run -->') continue;
    if (!/^```console\s*$/.test(lines[i + 1] ?? '')) throw new Error(`${file}:${i + 1}: docs-test marker not followed by a \`\`\`console block`);
    let cur: ConsoleExample | null = null;
    for (let j = i + 2; j < lines.length && !/^```\s*$/.test(lines[j]!); j++) {
      const l = lines[j]!;
      if (l.startsWith('$ ')) {
        cur = { file, line: j + 1, command: l.slice(2), expected: [] };
        out.push(cur);
      } else if (cur) cur.expected.push(l);
    }
  }
  return out;
}

const isWildcard = (line: string) => /^[\s│|]*\.\.\.[\s│|.]*$/.test(line) && line.includes('...');

/** Does the actual output match the expected lines (`...` lines match any run of lines)? */
export function outputMatches(expected: readonly string[], actual: readonly string[]): boolean {
  const e = expected.map((l) => l.trimEnd());
  const a = actual.map((l) => l.trimEnd());
  while (e.length && e[e.length - 1] === '') e.pop();
  while (a.length && a[a.length - 1] === '') a.pop();
  const memo = new Map<string, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    if (memo.has(key)) return memo.get(key)!;
    let r: boolean;
    if (i === e.length) r = j === a.length;
    else if (isWildcard(e[i]!)) r = go(i + 1, j) || (j < a.length && go(i, j + 1));
    else r = j < a.length && e[i] === a[j] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a shell command from the repository root, `npx webgrade` being the built CLI. */
export function runShell(command: string, timeoutMs = 600_000): Promise<Run> {
  const cmd = command.replace(/(^|[\s;&|(])npx webgrade(?=\s|$)/g, `$1${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)}`);
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', cmd], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COLUMNS: '80' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** `webgrade <path> --help`, from the built CLI (one process start: seconds on a loaded machine). */
export async function helpText(path: readonly string[]): Promise<string> {
  const r = await runShell(`npx webgrade ${[...path, '--help'].join(' ')}`, 300_000);
  if (r.code !== 0) throw new Error(`webgrade ${path.join(' ')} --help exited ${r.code}: ${r.stderr}`);
  return r.stdout.replace(/\s+$/, '');
}

/** The subcommand names a help text lists under "Commands:" (without `help`). */
export function subcommands(help: string): string[] {
  const section = help.split(/^Commands:\s*$/m)[1];
  if (!section) return [];
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((n) => n !== 'help');
}

/**
 * Every command path of the CLI with its `--help` text (80 columns, as when the output is not a terminal), built
 * in this process from the command modules of dist/bin/commands/ (every exported `…Command()` that returns a
 * commander Command) under a program named `webgrade`: one process instead of one per command. The docs test
 * checks that the top-level list equals the real CLI's.
 */
export async function allHelp(): Promise<Map<string, string>> {
  const dir = join(repoRoot, 'dist', 'bin', 'commands');
  const program = new Command('webgrade');
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.js'))
    .sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as Record<string, unknown>;
    for (const [name, make] of Object.entries(mod)) {
      if (!name.endsWith('Command') || typeof make !== 'function' || make.length !== 0) continue;
      const cmd: unknown = make();
      if (cmd instanceof Command) program.addCommand(cmd);
    }
  }
  const out = new Map<string, string>();
  const visit = (cmd: Command, path: string[]) => {
    cmd.configureOutput({ getOutHelpWidth: () => 80, getErrHelpWidth: () => 80 });
    if (path.length) out.set(path.join(' '), cmd.helpInformation().replace(/\s+$/, ''));
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return new Map([...out].sort(([x], [y]) => x.localeCompare(y)));
}

const HELP_BLOCK = /<!-- help:([\w -]+) -->\n```text\n([\s\S]*?)```\n<!-- \/help:\1 -->/g;

/** The help blocks of a page: command path → the text it holds. */
export function helpBlocks(text: string): Map<string, string> {
  return new Map([...text.matchAll(HELP_BLOCK)].map((m) => [m[1]!, m[2]!.replace(/\n$/, '')]));
}

/** The page with its help blocks replaced by the given help texts (blocks of unknown commands are kept). */
export function withHelp(text: string, help: ReadonlyMap<string, string>): string {
  return text.replace(HELP_BLOCK, (all, path: string) =>
    help.has(path) ? `<!-- help:${path} -->\n\`\`\`text\n${help.get(path)}\n\`\`\`\n<!-- /help:${path} -->` : all,
  );
}
