import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STUDY_PERSPECTIVES } from '../../core/metric.js';
import { describeWeights, PERSONA_IDS, personaPerspectiveWeights, presetWeights, resolveWeights } from '../../weights/personas.js';
import { validateWeightsFile } from '../../weights/weights-file.js';

describe('persona presets', () => {
  it('has the 8 columns of SPEC, each normalised to sum 1 over perspectives and over the 24 metrics', () => {
    assert.deepEqual([...PERSONA_IDS], ['dev', 'qa', 'ds', 'pm', 'ops', 'legal', 'designer', 'all']);
    for (const id of PERSONA_IDS) {
      const w = presetWeights(id);
      const ps = STUDY_PERSPECTIVES.reduce((s, p) => s + w.perspectives[p]!, 0);
      const ms = Object.values(w.metrics).reduce((s, x) => s + x, 0);
      assert.ok(Math.abs(ps - 1) < 1e-12 && Math.abs(ms - 1) < 1e-12, id);
      assert.equal(Object.keys(w.metrics).length, 24);
    }
  });

  it("keeps SPEC's proportions (designer: visual 20.8 of 100.0, code 5.6)", () => {
    const d = personaPerspectiveWeights('designer');
    const total = 5.6 + 20.8 + 6.9 + 5.6 + 11.1 + 5.6 + 16.7 + 18.1 + 9.7;
    assert.ok(Math.abs(d.visual! - 20.8 / total) < 1e-12);
    assert.ok(Math.abs(d.code! - 5.6 / total) < 1e-12);
    // Equal shares inside visual (6 metrics).
    assert.ok(Math.abs(presetWeights('designer').metrics['color-harmony']! - 20.8 / total / 6) < 1e-12);
  });

  it('says that within-perspective shares are equal by default', () => {
    assert.match(describeWeights(presetWeights('dev')), /equal by default/);
  });

  it('rejects an unknown persona', () => {
    assert.throws(() => resolveWeights({ persona: 'ceo' }), /unknown persona "ceo"/);
  });

  it('takes a persona from a weights file, with its metric shares', () => {
    const perspectives = Object.fromEntries(STUDY_PERSPECTIVES.map((p) => [p, 1 / 9]));
    const file = validateWeightsFile(
      { personas: { qa: { respondents: 3, perspectives, metrics: { 'code-redundancy': 0.25, 'comment-rate': 0.75 } } } },
      'w.json',
    );
    const w = resolveWeights({ weightsFile: file, weightsPath: 'w.json' });
    assert.equal(w.persona, 'qa');
    assert.ok(Math.abs(w.metrics['comment-rate']! - 0.75 / 9) < 1e-12);
    assert.ok(!w.equalShareIn.includes('maintainability'));
    assert.ok(w.equalShareIn.includes('visual'));
    assert.throws(() => resolveWeights({ weightsFile: file, weightsPath: 'w.json', persona: 'dev' }), /no persona "dev"/);
  });
});
