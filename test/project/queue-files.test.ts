/**
 * A project travels in a queue job as its own files: without `node_modules` and `.git` (the worker installs and
 * builds it), with its sources, manifest and lockfile; and the job's content hash does not change with them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { artifactFiles, contentHash } from '../../distribute/queue-jobs.js';
import { writeProject } from './tools.js';

describe('a project in a queue job', () => {
  it('carries its sources, manifest and lockfile, and leaves node_modules and .git behind', () => {
    const files = {
      'package.json': JSON.stringify({ scripts: { build: 'vite build' }, dependencies: { react: '19.3.1' } }),
      'package-lock.json': '{"lockfileVersion":3,"packages":{}}',
      'index.html': '<div id="root"></div><script type="module" src="/src/main.jsx"></script>',
      'src/main.jsx': 'export const App = () => <p>hi</p>;',
    };
    const dir = writeProject({ ...files, 'node_modules/react/index.js': 'module.exports = {}', '.git/HEAD': 'ref: refs/heads/main' });
    const carried = artifactFiles(dir);
    assert.deepEqual(carried.map(([rel]) => rel).sort(), Object.keys(files).sort());
    assert.equal(contentHash(carried), contentHash(artifactFiles(writeProject(files))));
  });
});
