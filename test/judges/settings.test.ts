import { judgeTasks } from '../../bin/cli-support.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { InputError } from '../../core/errors.js';
import { defaultCacheDir, modelFor, notConfiguredReason, resolveJudgeSettings } from '../../judges/settings.js';
import { tempDir } from '../helpers.js';

function configFile(value: unknown): string {
  const p = join(tempDir(), 'judge.json');
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value));
  return p;
}

describe('judge settings', () => {
  it('reads the environment: OPENAI_BASE_URL, OPENAI_API_KEY, WEBGRADE_JUDGE_MODEL, WEBGRADE_CACHE_DIR', () => {
    const s = resolveJudgeSettings({}, { OPENAI_BASE_URL: 'http://e/v1', OPENAI_API_KEY: 'k', WEBGRADE_JUDGE_MODEL: 'm', WEBGRADE_CACHE_DIR: '/c' });
    assert.deepEqual([s.baseURL, s.apiKey, s.model, s.cacheDir], ['http://e/v1', 'k', 'm', '/c/judges']);
    assert.equal(notConfiguredReason(s, 'functional-alignment'), null);
  });

  it('flags beat the config file, which beats the environment; per-metric models come from the file', () => {
    const cfg = configFile({
      baseURL: 'http://file/v1',
      model: 'file-model',
      models: { 'visual-experience': 'vision-model' },
      repeats: 3,
      prices: { 'file-model': { input: 1, output: 2 } },
    });
    const env = { OPENAI_BASE_URL: 'http://env/v1', WEBGRADE_JUDGE_MODEL: 'env-model', OPENAI_API_KEY: 'k' };
    const fromFile = resolveJudgeSettings({ judgeConfig: cfg }, env);
    assert.equal(fromFile.baseURL, 'http://file/v1');
    assert.equal(fromFile.repeats, 3);
    assert.equal(modelFor(fromFile, 'functional-alignment'), 'file-model');
    assert.equal(modelFor(fromFile, 'visual-experience'), 'vision-model');
    assert.deepEqual(fromFile.prices['file-model'], { input: 1, output: 2 });
    const withFlags = resolveJudgeSettings(
      { judgeConfig: cfg, judgeBaseUrl: 'http://flag/v1', judgeModel: 'flag-model', judgeRepeats: 2, judgeCache: false },
      env,
    );
    assert.deepEqual([withFlags.baseURL, withFlags.model, withFlags.repeats, withFlags.cacheDir], ['http://flag/v1', 'flag-model', 2, null]);
    assert.equal(modelFor(withFlags, 'visual-experience'), 'vision-model', 'a per-metric model still wins over the default model');
  });

  it('says why no judge is configured', () => {
    assert.match(notConfiguredReason(resolveJudgeSettings({}, {}), 'content-alignment')!, /^no judge configured/);
    assert.match(notConfiguredReason(resolveJudgeSettings({ judgeBaseUrl: 'http://x/v1' }, {}), 'content-alignment')!, /no judge model configured/);
    assert.match(notConfiguredReason(resolveJudgeSettings({ judgeModel: 'm' }, {}), 'content-alignment')!, /no judge endpoint configured/);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['an unknown key', { modle: 'x' }, /unknown key "modle"/],
    ['a model for a task that is not a judge', { models: { lint: 'x' } }, /"models" key "lint" is not a judge task/],
    ['a negative retry count', { maxRetries: -1 }, /"maxRetries" must be a whole number ≥ 0/],
    ['a bad price', { prices: { m: { input: 'cheap' } } }, /prices\.m must be/],
    ['a bad response format', { responseFormat: 'xml' }, /"responseFormat"/],
    ['an unset apiKeyEnv', { apiKeyEnv: 'NOPE_NOT_SET' }, /NOPE_NOT_SET, which is not set/],
    ['invalid JSON', '{nope', /not valid JSON/],
  ];
  for (const [name, value, re] of bad) {
    it(`rejects a config file with ${name} as bad input`, () => {
      assert.throws(
        () => resolveJudgeSettings({ judgeConfig: configFile(value) }, {}, judgeTasks()),
        (e: unknown) => e instanceof InputError && re.test(e.message),
      );
    });
  }

  it('alignment stance: study by default; the config key "alignment" and the flag set it, the flag winning', () => {
    assert.equal(resolveJudgeSettings({}, {}).alignment, 'study');
    assert.equal(resolveJudgeSettings({ judgeConfig: configFile({ alignment: 'strict' }) }, {}).alignment, 'strict');
    assert.equal(resolveJudgeSettings({ judgeConfig: configFile({ alignment: 'strict' }), alignment: 'study' }, {}).alignment, 'study');
    assert.throws(
      () => resolveJudgeSettings({ judgeConfig: configFile({ alignment: 'lenient' }) }, {}),
      (e: unknown) => e instanceof InputError && /"alignment" must be "study" or "strict"/.test(e.message),
    );
  });

  it('defaults the cache to ~/.cache/webgrade/judges', () => {
    assert.match(defaultCacheDir({ HOME: '/home/u' }), /\.cache\/webgrade\/judges$/);
  });
});
