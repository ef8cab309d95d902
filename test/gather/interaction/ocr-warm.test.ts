/**
 * The OCR engine is started before the requirement tests run when any of them reads by OCR (issue "Requirement
 * tests that can say what people ask for": its start-up counted against the first OCR test's time limit), and
 * only then.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { loadRequirements } from '../../../core/requirements.js';
import { closeOcr, readText, usesOcr, warmOcr } from '../../../gather/interaction/requirement-tests/ocr.js';
import { fixture } from '../../helpers.js';

const reqs = loadRequirements(fixture('requirement-tests', 'language.jsonl'));

describe('starting the OCR engine before the tests', () => {
  after(() => closeOcr());

  it('finds the tests that read by OCR, in an expectation or a read step, and no others', () => {
    assert.equal(usesOcr(reqs.find((r) => r.id === 'hud')!.tests), true);
    assert.equal(usesOcr(reqs.find((r) => r.id === 'flower')!.tests), false);
    assert.equal(usesOcr([{ id: 't', steps: [{ read: { css: 'canvas' }, ocr: true, as: 'n' }], expect: [] }]), true);
    assert.equal(usesOcr([{ id: 't', steps: [{ read: { css: '#n' }, ocr: false, as: 'n' }], expect: [] }]), false);
  });

  it('starts the engine without a picture, and the reading after it uses that engine', async () => {
    await warmOcr();
    const png = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60"><rect width="300" height="60" fill="#fff"/><text x="10" y="42" font-size="32" font-family="sans-serif">Score 42</text></svg>',
      ),
    )
      .png()
      .toBuffer();
    const { text } = await readText(png);
    assert.match(text, /Score\W*42/i);
    // A second warm-up is the same engine: nothing more starts (closeOcr ends the one).
    await warmOcr();
  });
});
