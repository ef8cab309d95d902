/**
 * A real `redis-server` for the queue tests, on a random loopback port, with no persistence. When none is
 * installed it is installed through apt (as scripts/setup.mjs installs Chromium); when that is impossible the
 * queue tests are skipped with the reason (and only they).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

function findRedis(): string | null {
  for (const p of [process.env.REDIS_SERVER, '/usr/bin/redis-server', '/usr/local/bin/redis-server']) if (p && existsSync(p)) return p;
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

let installTried = false;
/** The redis-server binary, installing Debian's `redis-server` package when missing; or why there is none. */
export function redisServerBinary(): { path: string } | { skip: string } {
  let p = findRedis();
  if (!p && !installTried) {
    installTried = true;
    if (existsSync('/usr/bin/apt-get')) {
      const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      const apt = (args: string[]) => {
        const [cmd, ...rest] = isRoot ? ['apt-get', ...args] : ['sudo', '-n', 'apt-get', ...args];
        return spawnSync(cmd!, rest, { env, stdio: 'ignore' }).status === 0;
      };
      process.stderr.write("[queue tests] redis-server missing: installing Debian's redis-server through apt\n");
      if (!apt(['install', '-y', '-qq', 'redis-server'])) {
        if (apt(['update', '-qq'])) apt(['install', '-y', '-qq', 'redis-server']);
      }
      p = findRedis();
    }
  }
  if (!p)
    return {
      skip: "redis-server is not installed and could not be installed through apt (install Debian's redis-server or set REDIS_SERVER): queue tests skipped",
    };
  return { path: p };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(binary: string): Promise<RedisServer> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    const ready = await new Promise<boolean>((resolve) => {
      const t = setInterval(() => {
        if (/Ready to accept connections/.test(out)) {
          clearInterval(t);
          resolve(true);
        }
      }, 50);
      child.once('exit', () => {
        clearInterval(t);
        resolve(false);
      });
    });
    if (ready) {
      const stop = () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        });
      process.once('exit', () => child.kill('SIGKILL'));
      return { url: `redis://127.0.0.1:${port}`, port, stop };
    }
    if (attempt >= 3) throw new Error(`redis-server did not start: ${out.slice(-500)}`);
  }
}
