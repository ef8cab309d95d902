/**
 * The evidence of a project (SPEC "Inputs": a folder with `package.json` and a build script): how its
 * dependencies were installed, how its own build ran in the sandbox, and what it produced. The project room
 * (project/) makes it; the scorer puts it in the evidence and the score document, and results rows carry it.
 *
 * Outcomes:
 * - `built`: the build exited 0 within its limits and left an output folder with an `index.html`;
 * - `failed`: the project's own defect: a dependency the registry does not have, a lockfile that does not match
 *   `package.json`, a build that exits non-zero, runs past its time, CPU, memory or process limits, or leaves no
 *   page. The metrics that need a page score 0 with this reason (UI2App's EXEC rule; SPEC "Inputs");
 * - `refused`: webgrade's own rules stopped it before the build: a dependency that is not on the npm registry
 *   (`file:`, `git`, URLs), a lockfile that points elsewhere, the install caps, the registry out of reach, no
 *   sandbox on this machine. Not the project's defect (as the CDN cache withholds what is over its caps): the
 *   metrics that need a page are unscorable with the reason.
 */
export type ProjectStatus = 'built' | 'failed' | 'refused';

export interface ProjectInstall {
  /** `package-lock.json`, `npm-shrinkwrap.json`, `pnpm-lock.yaml` or `yarn.lock` when the project had one. */
  lockfile?: string;
  ms: number;
  /** Packages in the installed tree (pnpm's lockfile), when the install got that far. */
  packages?: number;
  /** Tarballs downloaded from the registry for this project (0 from a warm store). */
  downloads: number;
  /** Bytes received from the registry for this project (packuments and tarballs). */
  registryBytes: number;
}

export interface ProjectBuildRun {
  /** The project's `scripts.build`, as written. */
  command: string;
  ms: number;
  exitCode: number | null;
  /** The limit that stopped it, when one did (`time`, `cpu`, `memory`, `processes`, `output`). */
  limit?: string;
  /** Warning lines of the build's output (at most 50, each cut to 300 characters). */
  warnings: string[];
  /** The last lines of the build's output (at most 4 KiB), control characters removed. */
  logTail: string;
}

export interface ProjectOutput {
  /** The output folder, relative to the project (`dist`, `build`, `out`, or the one it names). */
  folder: string;
  files: number;
  /** Bytes of every file of the output folder. */
  bytes: number;
  /** Bytes of its JavaScript and CSS files (the bundle). */
  jsBytes: number;
  cssBytes: number;
}

export interface ProjectEvidence {
  status: ProjectStatus;
  /** Why it was not built (one line), for `failed` and `refused`. */
  reason?: string;
  /** Where it stopped: `install`, `build` or `output`. */
  phase?: 'install' | 'build' | 'output';
  install?: ProjectInstall;
  build?: ProjectBuildRun;
  output?: ProjectOutput;
}
