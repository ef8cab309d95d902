import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dependencySpecProblem, isProjectFolder, manifestProblems, projectManifest } from '../../project/manifest.js';
import { findLockfile, lockfileProblems } from '../../project/lockfile.js';
import { findOutput } from '../../project/output.js';
import { buildWarnings, failureLine } from '../../project/build.js';
import { needsPage, unbuiltOutcome } from '../../project/page-metrics.js';
import { suiteMetrics } from '../../metrics/registry.js';
import { fixture, writeArtifact } from '../helpers.js';
import { writeProject } from './tools.js';

const REGISTRY = 'https://registry.npmjs.org/';

describe('which folders are projects', () => {
  it('is a project when package.json has a build script, whatever else the folder holds', () => {
    assert.equal(isProjectFolder(fixture('projects', 'react-app')), true);
    assert.equal(isProjectFolder(writeProject({ 'package.json': JSON.stringify({ scripts: { build: 'vite build' } }) })), true);
  });

  it('is a static folder as before without a build script, with invalid JSON, or without package.json', () => {
    assert.equal(isProjectFolder(fixture('example')), false);
    assert.equal(isProjectFolder(writeArtifact({ 'index.html': '<p>x</p>', 'package.json': JSON.stringify({ scripts: { test: 'x' } }) })), false);
    assert.equal(isProjectFolder(writeArtifact({ 'index.html': '<p>x</p>', 'package.json': '{ not json' })), false);
    assert.equal(isProjectFolder(writeArtifact({ 'index.html': '<p>x</p>', 'package.json': JSON.stringify({ scripts: { build: '   ' } }) })), false);
  });

  it('reads dependencies and the output folder the project names, and nothing that steers the package manager', () => {
    const dir = writeProject({
      'package.json': JSON.stringify({
        scripts: { build: 'x' },
        dependencies: { react: '^19' },
        devDependencies: { vite: '8.3.8' },
        webgrade: { output: 'www' },
        overrides: { react: 'file:/etc' },
      }),
    });
    const m = projectManifest(dir);
    assert.deepEqual(m.dependencies, { react: '^19' });
    assert.equal(m.output, 'www');
    assert.equal('overrides' in m, false);
  });
});

describe('dependencies must come from the npm registry', () => {
  const refused: Array<[string, string, RegExp]> = [
    ['a', 'file:../a', /local or workspace/],
    ['a', 'link:../a', /local or workspace/],
    ['a', 'workspace:*', /local or workspace/],
    ['react', 'github:facebook/react', /git repository/],
    ['react', 'facebook/react#main', /git repository/],
    ['react', 'git+ssh://git@github.com/facebook/react.git', /git repository/],
    ['left-pad', 'https://example.com/left-pad.tgz', /a URL/],
    ['left-pad', './left-pad', /a path/],
    ['Bad Name', '1.0.0', /not an npm package name/],
    ['x', '>>> nonsense <<<', /neither a version range nor a dist-tag/],
  ];
  for (const [name, spec, why] of refused)
    it(`refuses ${name}@${spec}`, () => {
      const p = dependencySpecProblem(name, spec);
      assert.ok(p && why.test(p), String(p));
    });

  for (const [name, spec] of [
    ['react', '^19.3.1'],
    ['react', '19.3.1'],
    ['react', 'latest'],
    ['react', 'next'],
    ['react', '*'],
    ['@vitejs/plugin-react', '>=6 <7'],
    ['my-react', 'npm:react@^19'],
  ])
    it(`accepts ${name}@${spec}`, () => assert.equal(dependencySpecProblem(name, spec), null));

  it('names every refused dependency of a manifest', () => {
    const problems = manifestProblems(projectManifest(fixture('projects', 'hostile', 'git-dependency')));
    assert.equal(problems.length, 3);
  });
});

describe('lockfiles', () => {
  it('finds pnpm-lock.yaml first, then npm and yarn lockfiles', () => {
    const dir = writeProject({ 'package.json': '{}', 'yarn.lock': '', 'package-lock.json': '{}' });
    assert.equal(findLockfile(dir), 'package-lock.json');
    writeFileSync(join(dir, 'pnpm-lock.yaml'), '');
    assert.equal(findLockfile(dir), 'pnpm-lock.yaml');
  });

  it('refuses an npm lockfile that resolves a package at another registry', () => {
    const p = lockfileProblems(fixture('projects', 'hostile', 'foreign-lockfile'), 'package-lock.json', REGISTRY);
    assert.match(p.join(), /registry\.evil\.example/);
  });

  it('refuses links, git and foreign tarballs in each lockfile kind, and passes registry entries', () => {
    const dir = writeProject({
      'package-lock.json': JSON.stringify({
        packages: {
          '': {},
          'node_modules/a': { version: '1.0.0', resolved: `${REGISTRY}a/-/a-1.0.0.tgz` },
          'node_modules/b': { version: '1.0.0' },
          'node_modules/c': { link: true, resolved: '../c' },
        },
      }),
      'pnpm-lock.yaml': [
        "lockfileVersion: '9.0'",
        'importers:',
        '  .:',
        '    dependencies:',
        '      d:',
        '        specifier: file:../d',
        '        version: file:../d',
        'packages:',
        '  a@1.0.0:',
        '    resolution: {integrity: sha512-AAAA}',
        '  e@1.0.0:',
        '    resolution: {tarball: https://evil.example/e.tgz}',
        '  f@1.0.0:',
        '    resolution: {type: git, repo: https://github.com/x/f, commit: abc}',
      ].join('\n'),
      'yarn.lock': [
        'a@^1.0.0:',
        '  version "1.0.0"',
        '  resolved "https://registry.yarnpkg.com/a/-/a-1.0.0.tgz#abc"',
        'g@^1:',
        '  resolved "https://evil.example/g.tgz"',
      ].join('\n'),
    });
    assert.deepEqual(lockfileProblems(dir, 'package-lock.json', REGISTRY), ['package-lock.json: node_modules/c is a link to a local folder']);
    const pnpm = lockfileProblems(dir, 'pnpm-lock.yaml', REGISTRY).join('\n');
    assert.match(pnpm, /e@1\.0\.0 is resolved at https:\/\/evil\.example/);
    assert.match(pnpm, /f@1\.0\.0 is resolved from a git repository/);
    assert.match(pnpm, /d is file:\.\.\/d/);
    assert.doesNotMatch(pnpm, /a@1\.0\.0/);
    assert.deepEqual(lockfileProblems(dir, 'yarn.lock', REGISTRY), ['yarn.lock: g@^1 is resolved at https://evil.example/g.tgz']);
  });
});

describe('the output folder', () => {
  const page = '<!doctype html><title>x</title>';
  it('is dist, build or out, in that order, when it holds index.html', () => {
    const dir = writeProject({ 'build/index.html': page, 'out/index.html': page });
    assert.deepEqual(findOutput(dir, new Set()), { folder: 'build' });
  });

  it('is found one or two folders down (Angular: dist/<app>/browser)', () => {
    const dir = writeProject({ 'dist/app/browser/index.html': page });
    assert.deepEqual(findOutput(dir, new Set()), { folder: 'dist/app/browser' });
  });

  it('is another folder the build made, but not one that was there before (public/ of the sources)', () => {
    const dir = writeProject({ 'public/index.html': page, 'www/index.html': page });
    assert.deepEqual(findOutput(dir, new Set(['public'])), { folder: 'www' });
  });

  it('is the folder package.json names, and only that one', () => {
    const dir = writeProject({ 'dist/index.html': page, 'site/index.html': page });
    assert.deepEqual(findOutput(dir, new Set(), 'site'), { folder: 'site' });
    assert.match((findOutput(dir, new Set(), 'nothing') as { reason: string }).reason, /no index\.html in nothing\//);
    assert.match((findOutput(dir, new Set(), '../../etc') as { reason: string }).reason, /not a folder inside the project/);
  });

  it('is missing, with the folders the build made, when none holds index.html', () => {
    const dir = writeProject({ 'lib/main.js': '' });
    mkdirSync(join(dir, 'empty'));
    assert.match((findOutput(dir, new Set()) as { reason: string }).reason, /it made empty\/, lib\//);
  });
});

describe("a build's log", () => {
  it("names a failed build by its first error with a message, not by the bundler's summary", () => {
    const log =
      "vite v8\n✗ Build failed in 70ms\nerror during build:\nBuild failed with 1 error:\n\n[UNRESOLVED_IMPORT] Could not resolve './Gallery.jsx' in src/main.jsx\n    at x (y.js:1:1)\n";
    assert.equal(failureLine(log), "[UNRESOLVED_IMPORT] Could not resolve './Gallery.jsx' in src/main.jsx");
    assert.equal(failureLine('Error: Cannot find module "x"\n    at a'), 'Error: Cannot find module "x"');
    assert.equal(failureLine('just text'), 'just text');
  });

  it('keeps warning lines', () => {
    assert.deepEqual(buildWarnings('ok\n(!) Some chunks are larger than 500 kB\nwarning: big\n⚠ careful\n'), ['warning: big', '⚠ careful']);
  });
});

describe('which metrics need a page (a project that was not built)', () => {
  it('in the study suite: the browser, screenshot, Lighthouse ones and the visual judge; the source ones are scored', () => {
    const page = suiteMetrics('study')
      .filter(needsPage)
      .map((m) => m.id)
      .sort();
    assert.deepEqual(page, [
      'accessibility',
      'best-practices',
      'code-redundancy',
      'color-harmony',
      'console-errors',
      'icon-consistency',
      'layout-consistency',
      'layout-sparsity',
      'media-quality',
      'mobile-compat',
      'performance',
      'placeholder-quality',
      'visual-experience',
    ]);
  });

  it('in the extended suite also the interaction, dead-code, requirement-test and fidelity metrics', () => {
    const added = suiteMetrics('extended')
      .filter((m) => m.suite === 'extended')
      .filter((m) => !needsPage(m))
      .map((m) => m.id);
    assert.deepEqual(added, []);
  });

  it('scores 0 with the reason when the build failed, and is unscorable with the reason when it was refused', () => {
    assert.deepEqual(unbuiltOutcome({ status: 'failed', reason: 'build failed (exit 1): x' }), { score: 0, summary: '0: no page, build failed (exit 1): x' });
    assert.deepEqual(unbuiltOutcome({ status: 'refused', reason: 'install refused: y' }), { score: null, reason: 'no page: install refused: y' });
  });
});
