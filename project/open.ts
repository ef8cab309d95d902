/**
 * A project opened for scoring: built (build.ts), its sources as the artifact the metrics read
 * (source-view.ts), and, when it was built, its output folder as what the browser is given (`Artifact.served`).
 */
import { loadArtifact } from '../lib/artifact/load.js';
import type { ProjectEvidence } from '../core/project.js';
import type { Projects } from './build.js';
import { loadProjectSource, type ProjectSourceArtifact } from './source-view.js';

export interface OpenedProject {
  artifact: ProjectSourceArtifact;
  evidence: ProjectEvidence;
  /** Remove the build's work folder (once the page is scored). */
  close(): void;
}

export async function openProject(projects: Projects, dir: string): Promise<OpenedProject> {
  const prepared = await projects.prepare(dir);
  try {
    const artifact = loadProjectSource(dir, prepared.manifest.output);
    if (prepared.outputDir) {
      const out = loadArtifact(prepared.outputDir);
      artifact.served = { root: out.root, entry: out.entry, files: out.files, refused: out.refused };
    }
    return { artifact, evidence: prepared.evidence, close: prepared.cleanup };
  } catch (err) {
    prepared.cleanup();
    throw err;
  }
}
