import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { insideTree } from '../../lib/paths.js';

describe('path confinement (lib/paths.ts, the one copy)', () => {
  it('accepts the folder itself and what is below it', () => {
    assert.equal(insideTree('/a/b', '/a/b'), true);
    assert.equal(insideTree('/a/b/c.html', '/a/b'), true);
    assert.equal(insideTree('/a/b/c.html', '/a/b/'), true);
    assert.equal(insideTree('/a/b/..x/c', '/a/b'), true, 'a name starting with two dots is a child');
    assert.equal(insideTree('/anything', '/'), true);
  });
  it('refuses a sibling sharing the prefix, the parent, and the folder itself when asked for strictly below', () => {
    assert.equal(insideTree('/a/bc/d', '/a/b'), false);
    assert.equal(insideTree('/a', '/a/b'), false);
    assert.equal(insideTree('/a/b', '/a/b/'), false);
  });
});
