/**
 * What one page may make the CDN cache fetch, and what one run may. A page names CDN URLs; every one the cache
 * does not hold costs a registry download, on the visit's proxy thread or (for the URL check of
 * `resource-validity`) on the scorer's. Measured before these caps: 60 dead `fetch()` calls to distinct packages
 * downloaded 60 tarballs (252 MB) in 4.6 s, and a 1-second visit fetched 21 versions (88 MB) that went on
 * downloading after the page closed. So each page (each artifact: the visit and the URL check each have one)
 * gets a {@link CdnBudget}:
 *
 * - registry bytes (packuments and tarballs as downloaded): {@link DEFAULT_PAGE_REGISTRY_BYTES};
 * - package downloads (distinct name@version tarballs): {@link DEFAULT_PAGE_PACKAGES};
 * - bytes the page adds to the cache (unpacked files and builds): {@link DEFAULT_PAGE_STORED_BYTES}, so that one
 *   page cannot push more than that (plus eviction's slack) of other pages' libraries out of the cache;
 * - an AbortSignal: when the page's site closes (or the URL check's time is up) its downloads stop.
 *
 * Every CdnCache also has a budget for its whole life (a run): {@link DEFAULT_RUN_REGISTRY_BYTES} of registry
 * bytes. What is over a budget is `unavailable` (withheld, the reason named), never the page's defect. Only
 * downloads count: what the cache already holds is served whatever the budget.
 */
import { UnavailableError } from './errors.js';

const MiB = 1024 ** 2;
/** Registry bytes one page may cause: room for one of the largest packages pages load (pyodide's core, @ffmpeg/core: ~30 MiB) and the usual libraries beside it. */
export const DEFAULT_PAGE_REGISTRY_BYTES = 64 * MiB;
/** Package downloads per page: d3 as ES modules (`d3@7/+esm`) loads about 34 (d3, its 30 d3-* packages, what they import); 48 leaves room beside it. */
export const DEFAULT_PAGE_PACKAGES = 48;
/** Bytes one page may add to the cache: twice the per-package cap, 1/16 of the default 4 GiB cache. */
export const DEFAULT_PAGE_STORED_BYTES = 256 * MiB;
/** Registry bytes per run (per CdnCache): tarballs unpack to about 3–4 times their size, so about one cache's worth. */
export const DEFAULT_RUN_REGISTRY_BYTES = 1024 * MiB;

export interface BudgetLimits {
  registryBytes: number;
  packages: number;
  storedBytes: number;
}

export const PAGE_LIMITS: BudgetLimits = {
  registryBytes: DEFAULT_PAGE_REGISTRY_BYTES,
  packages: DEFAULT_PAGE_PACKAGES,
  storedBytes: DEFAULT_PAGE_STORED_BYTES,
};
export const NO_LIMITS: BudgetLimits = { registryBytes: Infinity, packages: Infinity, storedBytes: Infinity };

/** Over a budget: our limit, not the page's defect (an `unavailable` answer). */
export class BudgetError extends UnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetError';
  }
}

/** The page that asked is gone (its site closed): the download was stopped. */
export class AbortedError extends UnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'AbortedError';
  }
}

const mib = (n: number) => (n >= MiB ? `${(n / MiB).toFixed(0)} MiB` : `${Math.ceil(n / 1024)} KiB`);

export class CdnBudget {
  registryBytes = 0;
  storedBytes = 0;
  private readonly downloads = new Set<string>();

  /**
   * @param who  names the budget in reasons ("the page", "the run")
   * @param run  the run's budget, charged with every registry byte this one is
   */
  constructor(
    readonly limits: BudgetLimits,
    readonly signal?: AbortSignal,
    readonly who = 'the page',
    readonly run?: CdnBudget,
  ) {}

  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** Throws when the page is gone (checked before every download and between its chunks). */
  check(what: string): void {
    if (this.aborted) throw new AbortedError(`${what}: stopped, ${this.who} is closed or out of time`);
  }

  /** A tarball download of `key` (name@version): counted once; over the count it is refused before any byte. */
  claimPackage(key: string): void {
    this.check(key);
    if (!this.downloads.has(key) && this.downloads.size >= this.limits.packages) {
      throw new BudgetError(`${key} not downloaded: over ${this.who}'s budget of ${this.limits.packages} package downloads`);
    }
    this.run?.claimPackage(key);
    this.downloads.add(key);
  }

  /** A download announced as `n` bytes (Content-Length): refused before reading when it cannot fit. */
  expect(what: string, n: number): void {
    this.run?.expect(what, n);
    if (this.registryBytes + n > this.limits.registryBytes)
      throw new BudgetError(`${what} not downloaded: its ${mib(n)} would pass ${this.who}'s budget of ${mib(this.limits.registryBytes)} from the registry`);
  }

  /** Bytes as they arrive from the registry; throws (and the download is stopped) past the budget. */
  addRegistryBytes(what: string, n: number): void {
    this.check(what);
    this.run?.addRegistryBytes(what, n);
    this.registryBytes += n;
    if (this.registryBytes > this.limits.registryBytes)
      throw new BudgetError(`${what} not downloaded: over ${this.who}'s budget of ${mib(this.limits.registryBytes)} from the registry`);
  }

  /** Bytes about to be added to the cache; refused (nothing written) past the budget. */
  addStored(what: string, n: number): void {
    if (this.storedBytes + n > this.limits.storedBytes)
      throw new BudgetError(`${what} not cached: its ${mib(n)} would pass ${this.who}'s budget of ${mib(this.limits.storedBytes)} added to the cache`);
    this.storedBytes += n;
  }

  /** How much was used, for logs and tests. */
  used(): { registryBytes: number; packages: number; storedBytes: number } {
    return { registryBytes: this.registryBytes, packages: this.downloads.size, storedBytes: this.storedBytes };
  }
}

/**
 * A promise shared by everyone asking for the same thing at once (a packument, a package, a build), started by
 * the first asker with its budget. When that asker's page closes, the others do not inherit its abort: an
 * asker whose own page is still open starts the work again, once.
 */
export async function shared<T>(pending: Map<string, Promise<T>>, key: string, budget: CdnBudget, start: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let p = pending.get(key);
    if (!p) {
      p = start().finally(() => {
        if (pending.get(key) === p) pending.delete(key);
      });
      pending.set(key, p);
    }
    try {
      return await p;
    } catch (err) {
      if (err instanceof AbortedError && !budget.aborted && attempt === 0) {
        if (pending.get(key) === p) pending.delete(key);
        continue;
      }
      throw err;
    }
  }
}
