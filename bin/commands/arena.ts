/**
 * `webgrade arena <results.jsonl> --out votes.jsonl`: people compare two models' pages of one requirement, live,
 * and vote; the votes file is what `analyse --pairs`, `weights fit --pairs` and `leaderboard --pairs` read
 * (arena/, docs/arena.md).
 */
import { userInfo } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { InputError } from '../../core/errors.js';
import { CdnCache } from '../../cdn/index.js';
import { readCatalogue } from '../../arena/catalogue.js';
import { MAX_NAME_CHARS } from '../../arena/catalogue.js';
import { startArena } from '../../arena/server.js';
import { action, say, warn } from '../cli-support.js';
import { parseHostList, parsePositiveIntOrZero } from './survey.js';

interface ArenaFlags {
  out?: string;
  requirements?: string;
  port: number;
  listen?: string;
  rater?: string[];
  allowHost?: string[];
  repeatPairs?: boolean;
  network?: string;
  cdnCache?: string;
}

function collectRater(value: string, previous: string[] = []): string[] {
  const name = value.trim();
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(name))
    throw new InvalidArgumentError(`expected a name of 1 to ${MAX_NAME_CHARS} printable characters`);
  return [...previous, name];
}

/** The default rater: who runs the arena (one person rating on their own machine). */
function defaultRater(): string {
  try {
    return userInfo().username || 'rater';
  } catch {
    return 'rater';
  }
}

export function arenaCommand(): Command {
  return new Command('arena')
    .description("compare two models' pages of one requirement side by side, live, and collect people's votes (pairs format)")
    .argument('<results.jsonl>', 'results file written by `webgrade batch` (the pages to compare, with their screenshots)')
    .option('--out <votes.jsonl>', 'votes file to append to (read back on restart); required')
    .option('--requirements <reqs.jsonl>', "requirements JSONL: the requirement's text is shown above the pair")
    .option('--rater <name>', 'a rater, who gets a link of their own (repeat for a team; default: your user name)', collectRater)
    .option('--port <n>', 'port of the arena (default 8378; 0 picks a free one)', parsePositiveIntOrZero, 8378)
    .option('--listen <address>', 'address to listen on (default 127.0.0.1; 0.0.0.0 for a team on other machines, with --allow-host)')
    .option(
      '--allow-host <hosts>',
      'comma-separated names (host or host:port) raters reach the arena by, besides 127.0.0.1, localhost and [::1]',
      parseHostList,
    )
    .option('--repeat-pairs', 'once a rater has judged every pair, show them pairs again (default: never the same pair twice)')
    .option('--network <mode>', 'what the pages may reach besides their own files: cdn (default: CDN files from the local cache) or offline')
    .option('--cdn-cache <dir>', 'CDN cache folder (default: $XDG_CACHE_HOME/webgrade/cdn or ~/.cache/webgrade/cdn)')
    .action(
      action(async (results: string, flags: ArenaFlags) => {
        if (!flags.out) throw new InputError('arena: give --out <votes.jsonl> (where the votes go)');
        const network = flags.network ?? 'cdn';
        if (network !== 'cdn' && network !== 'offline') throw new InputError(`--network ${network}: the arena takes cdn or offline`);
        if (flags.listen && flags.listen !== '127.0.0.1' && !flags.allowHost)
          throw new InputError('--listen: name the host raters use with --allow-host (the arena answers only to names it knows)');
        const catalogue = readCatalogue(results, flags.requirements);
        if (catalogue.pages.length === 0)
          throw new InputError(`${results}: no page the arena can serve${catalogue.skipped[0] ? ` (${catalogue.skipped[0]})` : ''}`);
        const raters = flags.rater ?? [defaultRater()];
        const server = await startArena({
          catalogue,
          out: flags.out,
          raters,
          port: flags.port,
          ...(flags.listen ? { listen: flags.listen } : {}),
          ...(flags.allowHost ? { allowHosts: flags.allowHost } : {}),
          ...(flags.repeatPairs ? { repeatPairs: true } : {}),
          ...(network === 'cdn' ? { cdn: new CdnCache(flags.cdnCache ? { dir: flags.cdnCache } : {}) } : {}),
          onLockLost: (err) => warn(`warning: the lock on ${flags.out} was lost (${err.message}); do not run two arenas on one votes file\n`),
        });
        for (const s of catalogue.skipped.slice(0, 10)) warn(`skipped ${s}\n`);
        if (catalogue.skipped.length > 10) warn(`... and ${catalogue.skipped.length - 10} more pages skipped\n`);
        for (const n of server.notes) warn(`${n}\n`);
        say(
          `arena at ${server.url} — ${catalogue.pages.length} pages, ${server.pairs} pairs; ${server.votes()} votes already in ${flags.out}, new ones are appended; Ctrl-C stops\n`,
        );
        for (const [name, link] of server.links) say(`  ${name}: ${link}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await server.close();
        say(`stopped; ${server.votes()} votes in ${flags.out}\n`);
      }),
    );
}
