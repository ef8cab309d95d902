/**
 * The worker side of static-thread.ts: loads an artifact from its path, parses it and scores the static
 * metrics asked for, reporting as it goes (the phase it is in, the parse's blocks and references, each
 * metric's result) so that the main thread keeps whatever finished when it stops this thread at the deadline.
 */
import { parentPort } from 'node:worker_threads';
import { loadArtifact } from '../lib/artifact/load.js';
import { loadProjectSource } from '../project/source-view.js';
import { artifactDomError, artifactParseResults } from '../lib/artifact/loaded.js';
import { ArtifactParseError } from '../core/artifact/model.js';
import { errorMessage, InputError } from '../core/errors.js';
import { findMetric } from '../metrics/registry.js';
import { runMetric } from './run-metric.js';
import type { FromStaticWorker, ToStaticWorker } from './static-thread.js';

const port = parentPort!;
const send = (msg: FromStaticWorker) => port.postMessage(msg);

port.on('message', (msg: ToStaticWorker) => {
  void score(msg);
});

async function score(job: ToStaticWorker): Promise<void> {
  const { id } = job;
  try {
    send({ type: 'phase', id, phase: 'loading the artifact' });
    const artifact = job.project ? loadProjectSource(job.path, job.project.output) : loadArtifact(job.path);
    send({ type: 'phase', id, phase: 'parsing the page' });
    try {
      void artifact.sources;
      const parse = artifactParseResults(artifact)!;
      send({ type: 'parsed', id, parse });
    } catch (err) {
      send({ type: 'parsed', id, error: err instanceof ArtifactParseError ? err.message : `the page could not be parsed (${errorMessage(err)})` });
    }
    if (job.buildDom) {
      send({ type: 'phase', id, phase: 'building the static DOM' });
      try {
        void artifact.dom;
      } catch {
        /* kept by the artifact: the metrics that read the DOM say why */
      }
    }
    const evidence = { artifact, options: { checkNetwork: job.checkNetwork } };
    for (const metricId of job.metrics) {
      const metric = findMetric(metricId);
      if (!metric) throw new Error(`unknown metric ${metricId}`);
      send({ type: 'phase', id, phase: `scoring ${metricId}` });
      send({ type: 'result', id, result: await runMetric(metric, evidence) });
    }
    const domError = artifactDomError(artifact);
    send(domError === undefined ? { type: 'done', id } : { type: 'done', id, domError });
  } catch (err) {
    send({ type: 'failed', id, message: err instanceof InputError ? err.message : `static analysis failed: ${errorMessage(err)}` });
  }
}
