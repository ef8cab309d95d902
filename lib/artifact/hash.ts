/**
 * The identity of an artifact's content, for what is kept per artifact and reused on a rerun (the requirement-test
 * agent's recordings, gather/interaction/requirement-tests/agent.ts): sha256 over every file of the artifact, in path order,
 * each as its path, its size and its bytes (the encoding of the queue's content hash, distribute/queue-jobs.ts).
 *
 * Every file counts, whatever it is: images, fonts, wasm, files of any size and files with NUL bytes. A key that
 * leaves a file out lets two artifacts that differ only in that file share what was recorded for one of them.
 * Bytes are read a chunk at a time (CHUNK_BYTES) and hashed as they come, so a large file is never held in
 * memory; each file is opened as every read of an artifact file is (load.ts `readArtifactFile`: its verified real
 * path, no link followed, a regular file only). A file that cannot be read counts as its path and the reason.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { errorMessage } from '../../core/errors.js';
import type { Artifact } from '../../core/artifact/model.js';

const CHUNK_BYTES = 1024 * 1024;

/** sha256 (hex) of every file of the artifact: path, size and bytes, in path order (see the module comment). */
export async function artifactContentHash(artifact: Pick<Artifact, 'files'>): Promise<string> {
  const h = createHash('sha256');
  const files = [...artifact.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (const f of files) {
    try {
      const fh = await open(f.absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const st = await fh.stat();
        if (!st.isFile()) throw new Error('not a regular file');
        h.update(`${f.path}\0${st.size}\0`);
        for (let pos = 0; ;) {
          const { bytesRead } = await fh.read(chunk, 0, CHUNK_BYTES, pos);
          if (bytesRead === 0) break;
          h.update(chunk.subarray(0, bytesRead));
          pos += bytesRead;
        }
      } finally {
        await fh.close();
      }
    } catch (err) {
      h.update(`${f.path}\0unreadable: ${errorMessage(err)}\0`);
    }
  }
  return h.digest('hex');
}
