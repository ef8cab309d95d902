/** The requirement-test agent's caps: the judge config's `agent` key and the `--agent-*` flags. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT_CAPS, parseJudgeConfig, resolveJudgeSettings } from '../../judges/settings.js';
import { InputError } from '../../core/errors.js';
import { tempDir } from '../helpers.js';

describe('agent caps', () => {
  it("defaults, then the config file's agent key, then the flags", () => {
    assert.deepEqual(resolveJudgeSettings({}, {}).agent, DEFAULT_AGENT_CAPS);
    const file = join(tempDir(), 'judges.json');
    writeFileSync(file, JSON.stringify({ agent: { maxSteps: 5, timeSeconds: 30, vision: false } }));
    const s = resolveJudgeSettings({ judgeConfig: file }, {});
    assert.deepEqual(s.agent, { maxSteps: 5, maxTokens: DEFAULT_AGENT_CAPS.maxTokens, timeMs: 30_000, vision: false });
    const f = resolveJudgeSettings({ judgeConfig: file, agentSteps: 3, agentTokens: 1000, agentTime: 10 }, {});
    assert.deepEqual(f.agent, { maxSteps: 3, maxTokens: 1000, timeMs: 10_000, vision: false });
    assert.deepEqual(DEFAULT_AGENT_CAPS.maxSteps, 12, 'the defaults are not changed by a resolution');
  });

  it('rejects unknown and bad agent keys with one line', () => {
    assert.throws(
      () => parseJudgeConfig({ agent: { steps: 3 } }, 'judge config x'),
      (e: unknown) => e instanceof InputError && /judge config x: unknown key "agent.steps"/.test(e.message),
    );
    assert.throws(() => parseJudgeConfig({ agent: { maxSteps: 0 } }, 'judge config x'), /"maxSteps" must be a whole number ≥ 1/);
    assert.throws(() => parseJudgeConfig({ agent: { vision: 'yes' } }, 'judge config x'), /"agent.vision" must be true or false/);
    assert.throws(() => parseJudgeConfig({ agent: 3 }, 'judge config x'), /"agent" must be an object/);
  });

  it('a config may name the agent\'s model under models["requirement-tests"]', () => {
    const s = parseJudgeConfig({ models: { 'requirement-tests': 'vision-model' } }, 'judge config x', {}, ['checklist', 'requirement-tests']);
    assert.equal(s.models!['requirement-tests'], 'vision-model');
  });
});
