/** Builders of judge answers and settings for tests. */
import { DEFAULT_JUDGE_SETTINGS, type JudgeSettings } from '../../judges/settings.js';
import { CRITERIA_IDS } from '../../judges/prompts/functionality.js';

export function testSettings(baseURL: string, overrides: Partial<JudgeSettings> = {}): JudgeSettings {
  return {
    ...DEFAULT_JUDGE_SETTINGS,
    baseURL,
    apiKey: 'test-key',
    model: 'judge-test',
    cacheDir: null,
    maxRetries: 0,
    timeoutMs: 5000,
    deadlineMs: 20_000,
    models: {},
    prices: {},
    ...overrides,
  };
}

export function criteriaJson(scores: readonly number[], ids: readonly string[] = CRITERIA_IDS): string {
  return JSON.stringify({ criteria: ids.map((id, i) => ({ id, score: scores[i], reason: `reason ${id}` })) });
}

export function verdictsJson(ids: readonly string[], passed: readonly boolean[]): string {
  return JSON.stringify({ verdicts: ids.map((item, i) => ({ item, passed: passed[i], reason: 'r', excerpt: '' })) });
}

export function visualJson(score: number, aspects = score): string {
  return JSON.stringify({ aesthetics: aspects, hierarchy: aspects, consistency: aspects, fit: aspects, score, reason: 'looks fine' });
}

/** A tiny valid 1×1 PNG. */
export const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
