/**
 * One Lighthouse navigation with its configuration resolved once per thread, not once per run. Lighthouse's
 * `lighthouse(url, flags, config, page)` resolves the configuration on every call (`initializeConfig`: extending
 * the default config, resolving settings, loading and filtering some 200 gatherer and audit definitions): measured
 * 0.28–0.5 s of the Lighthouse thread per page on the 2-core machine (load 25), with the same answer every time.
 *
 * So the resolved configuration is kept per configuration (its settings and flags as JSON, the port aside, and
 * whether it adds our gatherer; a run whose time limit shortens `maxWaitForLoad` is another key) and each run
 * gets a copy with fresh gatherer instances (gatherers keep state during a run, and ours is a class made per run
 * with the run's hold and lock: lighthouse-mobile.ts). The run itself is Lighthouse's own `navigation` as
 * `core/index.js` and `core/gather/navigation-runner.js` do it (set-up, navigation, clean-up, then the audits),
 * with the resolved configuration in place of a new one. `WEBGRADE_LIGHTHOUSE_CONFIG=per-run` resolves it on every
 * run, as Lighthouse does.
 */
import lighthouseLog from 'lighthouse-logger';
import type { Page } from 'puppeteer-core';

type Defn = { id: string; gatherer: { instance: object; implementation?: new () => object } };
export interface ResolvedConfig {
  artifacts: Defn[] | null;
  settings: Record<string, unknown>;
  [k: string]: unknown;
}
interface Internals {
  initializeConfig(mode: 'navigation', config: unknown, flags: unknown): Promise<{ resolvedConfig: ResolvedConfig }>;
  Runner: { gather(fn: () => Promise<unknown>, opts: unknown): Promise<unknown>; audit(artifacts: unknown, opts: unknown): Promise<unknown> };
  Driver: new (page: Page) => unknown;
  nav: { _setup(ctx: unknown): Promise<{ baseArtifacts: unknown }>; _navigation(ctx: unknown): Promise<unknown>; _cleanup(ctx: unknown): Promise<void> };
  finalizeArtifacts(base: unknown, artifacts: unknown): unknown;
  normalizeUrl(url: string): string;
}

let internals: Internals | undefined;
async function load(): Promise<Internals> {
  if (internals) return internals;
  const [config, runner, driver, nav, base, url] = await Promise.all([
    import('lighthouse/core/config/config.js' as string),
    import('lighthouse/core/runner.js' as string),
    import('lighthouse/core/gather/driver.js' as string),
    import('lighthouse/core/gather/navigation-runner.js' as string),
    import('lighthouse/core/gather/base-artifacts.js' as string),
    import('lighthouse/core/lib/url-utils.js' as string),
  ]);
  internals = {
    initializeConfig: config.initializeConfig,
    Runner: runner.Runner,
    Driver: driver.Driver,
    nav,
    finalizeArtifacts: base.finalizeArtifacts,
    normalizeUrl: (u: string) => url.default.normalizeUrl(u),
  };
  return internals;
}

const resolved = new Map<string, ResolvedConfig>();

/** How many configurations were resolved in this thread (tests, benchmarks). */
export const configStats = { resolved: 0, reused: 0 };

/** Lighthouse's navigation of `url` in `page` with `config`, resolved once per configuration; what `lighthouse()` returns. */
export async function navigateWithResolvedConfig(
  url: string,
  flags: Record<string, unknown>,
  config: Record<string, unknown>,
  page: Page,
): Promise<{ lhr: never; artifacts?: Record<string, unknown> } | undefined> {
  const lh = await load();
  lighthouseLog.setLevel(String(flags.logLevel ?? 'error'));
  const key = JSON.stringify({
    flags: { ...flags, port: undefined },
    settings: config.settings,
    extends: config.extends,
    gatherers: ((config.artifacts as Array<{ id: string }> | undefined) ?? []).map((a) => a.id),
  });
  let base = process.env.WEBGRADE_LIGHTHOUSE_CONFIG === 'per-run' ? undefined : resolved.get(key);
  if (base) configStats.reused++;
  else {
    base = (await lh.initializeConfig('navigation', config, flags)).resolvedConfig;
    configStats.resolved++;
    resolved.set(key, base);
  }
  const resolvedConfig = perRunConfig(base, config);
  const computedCache = new Map();
  const runnerOptions = { resolvedConfig, computedCache };
  const artifactsOut = await lh.Runner.gather(async () => {
    const context = {
      driver: new lh.Driver(page),
      lhBrowser: undefined,
      lhPage: undefined,
      page,
      resolvedConfig,
      requestor: lh.normalizeUrl(url),
      computedCache,
    };
    const { baseArtifacts } = await lh.nav._setup(context);
    const gathered = await lh.nav._navigation({ ...context, baseArtifacts });
    await lh.nav._cleanup(context);
    return lh.finalizeArtifacts(baseArtifacts, gathered);
  }, runnerOptions);
  return (await lh.Runner.audit(artifactsOut, runnerOptions)) as { lhr: never; artifacts?: Record<string, unknown> } | undefined;
}

/**
 * This run's configuration from a resolved one: our gatherers from this run's config (made per run), the others as
 * resolved, each a fresh instance; the settings copied, since a run may change its own waits (a never-idle verdict,
 * lighthouse.ts `applyPageState`) and that must not reach the next run that reuses the resolution.
 */
export function perRunConfig(base: ResolvedConfig, config: Record<string, unknown>): ResolvedConfig {
  const own = new Map(
    ((config.artifacts as Array<{ id: string; gatherer: { implementation: new () => object } }> | undefined) ?? []).map((a) => [
      a.id,
      a.gatherer.implementation,
    ]),
  );
  const artifacts =
    base.artifacts?.map((a) => {
      const Impl = own.get(a.id) ?? (a.gatherer.instance.constructor as new () => object);
      return { ...a, gatherer: { ...a.gatherer, implementation: Impl, instance: new Impl() } };
    }) ?? null;
  return { ...base, settings: { ...base.settings }, artifacts };
}
