/**
 * CPU priority for Lighthouse's measured phase (issue "Numbers that hold still", item 4). The machine-wide lock
 * (measure-lock.ts) keeps two measurements apart, but the other workers keep working meanwhile (their visits,
 * static and vision metrics, Lighthouse's audit phase), and on two cores that work slowed the measured page: at
 * concurrency 2, with the lock, `performance` still differed from concurrency 1 by up to 27 points on one of 60
 * pages (its measured phase took 1.6 s instead of 0.7 s), against 5 between two runs at concurrency 1.
 *
 * So while a worker holds the lock, every thread of its scoring process and of everything it started runs at a
 * priority raised by MEASURE_RAISE nice steps: its Chrome (browser, GPU, network and renderer processes; the visit's context is closed by then, so
 * this Chrome is only loading the measured page), the sandbox thread that serves the page's files (Lighthouse's
 * simulation reads the server's response times) and the Lighthouse thread; nothing else of that worker runs then
 * (its own work is over before Lighthouse is let measure). When the trace is taken they return to the priority
 * they had. The other workers meanwhile run at a priority lowered by the same steps, or are stopped for a page
 * that keeps computing after its load (measure-alone.ts); `raisePriority` with a negative `by` lowers.
 *
 * Raising a priority needs the right to (CAP_SYS_NICE: root, as in the containers and CI this runs in, or a
 * raised RLIMIT_NICE). Without it nothing changes and the measurement relies on the lock alone; with
 * WEBGRADE_DEBUG the reason is printed once. `WEBGRADE_MEASURE_PRIORITY=off` turns it off. Linux only (/proc).
 * Nice values are per thread on Linux, so each thread (/proc/<pid>/task) is set; threads started during the
 * measurement inherit the raised priority and are put back with the others.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How much the measuring process tree's threads are raised: each thread's nice value goes down by this much (never
 * below −20), so that the order Chrome gives its own threads is kept (it runs its background thread pool at nice
 * 10 and display-critical threads at −8: setting every thread to one value made background compilation compete
 * with the page's main thread, and a Pyodide page's score moved by 25 points between two runs at concurrency 1).
 */
export const MEASURE_RAISE = 10;

export interface PriorityBoost {
  /** Threads whose priority was raised. */
  raised: number;
  /** Why nothing was raised, when nothing was. */
  reason?: string;
  /** Put every thread back (idempotent). */
  restore(): void;
}

let warned = false;

/** `root` and all its descendants, from the parent pids in /proc/<pid>/stat. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses; the last ')' ends it.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid);
    if (list) list.push(Number(name));
    else children.set(ppid, [Number(name)]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

const noBoost = (reason: string): PriorityBoost => ({ raised: 0, reason, restore() {} });

/** Raise every thread of the process tree under `pid` by `by` nice steps; see the module comment. Never throws. */
export function raisePriority(pid: number | undefined, by = MEASURE_RAISE): PriorityBoost {
  if (process.env.WEBGRADE_MEASURE_PRIORITY === 'off') return noBoost('turned off (WEBGRADE_MEASURE_PRIORITY=off)');
  if (process.platform !== 'linux') return noBoost('not on Linux');
  if (!pid) return noBoost('no Chrome process');
  const before = new Map<number, number>();
  const after = new Map<number, number>();
  const tree = new Set<number>();
  try {
    for (const p of processTree(pid)) {
      tree.add(p);
      for (const tid of threadsOf(p)) {
        let was: number;
        try {
          was = getPriority(tid);
        } catch {
          continue; // the thread ended
        }
        const raised = Math.min(19, Math.max(-20, was - by));
        if (raised === was) continue;
        try {
          setPriority(tid, raised);
          before.set(tid, was);
          after.set(tid, raised);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EACCES' || code === 'EPERM') {
            const why = `raising Chrome's priority is not permitted (${code}: needs CAP_SYS_NICE); the measurement relies on the lock alone`;
            if (process.env.WEBGRADE_DEBUG && !warned) process.stderr.write(`webgrade: ${why}\n`);
            warned = true;
            for (const [t, w] of before) setQuietly(t, w);
            return noBoost(why);
          }
          // ESRCH: the thread ended between the listing and the call.
        }
      }
    }
  } catch (err) {
    for (const [t, w] of before) setQuietly(t, w);
    return noBoost(`could not list Chrome's processes: ${(err as Error).message}`);
  }
  let restored = false;
  return {
    raised: before.size,
    restore() {
      if (restored) return;
      restored = true;
      for (const [tid, was] of before) setQuietly(tid, was);
      // Threads and processes started meanwhile inherited a raised priority from the thread that started them: one at
      // a raised value is lowered by the same steps; one at another value had its priority set by Chrome itself.
      const raisedValues = new Set(after.values());
      let now: number[];
      try {
        now = processTree(pid);
      } catch {
        now = [...tree];
      }
      for (const p of now) {
        for (const tid of threadsOf(p)) {
          if (before.has(tid)) continue;
          try {
            const is = getPriority(tid);
            if (raisedValues.has(is)) setPriority(tid, Math.min(19, Math.max(-20, is + by)));
          } catch {
            /* ended */
          }
        }
      }
    },
  };
}

function setQuietly(tid: number, nice: number): void {
  try {
    setPriority(tid, nice);
  } catch {
    /* the thread ended */
  }
}
