/**
 * Judge settings: which OpenAI-compatible endpoint and model(s) the five judge metrics and the checklist step use,
 * and how patiently they call it.
 *
 * Sources, highest precedence first (merged field by field):
 *   1. command-line flags (`--judge-base-url`, `--judge-model`, `--judge-repeats`, `--judge-timeout`, ...);
 *   2. the JSON config file named by `--judge-config <file>` (or `WEBGRADE_JUDGE_CONFIG`);
 *   3. the environment: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `WEBGRADE_JUDGE_MODEL`, `WEBGRADE_CACHE_DIR`.
 * Interpretation: a config file named on the command line is more specific than the ambient environment, so it
 * wins over it; the API key is normally left to `OPENAI_API_KEY` (or `apiKeyEnv` in the file names another variable).
 *
 * Config file (every key optional; unknown keys are an error, to catch typos):
 * ```json
 * { "baseURL": "http://localhost:8000/v1", "apiKey": "...", "apiKeyEnv": "MY_KEY_VAR",
 *   "model": "qwen2.5-vl-72b",
 *   "models": { "functional-alignment": "other-model", "checklist": "other-model" },
 *   "timeoutSeconds": 120, "maxRetries": 2, "invalidRetries": 1, "concurrency": 8, "repeats": 1,
 *   "deadlineSeconds": 600, "temperature": 0, "maxTokens": 4096,
 *   "responseFormat": "json_schema" | "json_object" | "none",
 *   "prices": { "qwen2.5-vl-72b": { "input": 0.4, "output": 1.2 } },   // USD per million tokens
 *   "cache": true, "cacheDir": "/path", "maxSourceChars": 60000,
 *   "alignment": "study" | "strict",
 *   "agent": { "maxSteps": 12, "maxTokens": 200000, "timeSeconds": 180, "vision": true } }
 * ```
 * `concurrency` is the judge calls in flight at once: 8 for `score`; a batch's or queue worker's judge stage, which
 * serves every artifact through one queue, defaults to 48 (`defaults` of resolveJudgeSettings; distribute/judge-stage.ts).
 * `alignment` (flag `--alignment`, default `study`) is the stance of the three alignment judges: the study's
 * "addressed at a high level, mock data and unfinished features count" or our strict "implemented so that it
 * works" (core/judge-answer.ts, ALIGNMENT_STANCES). It changes their prompt and prompt version.
 * A judge is "configured" for a task when a model is known for it and either a base URL or an API key is known
 * (the openai package would otherwise talk to its default host, which a benchmark run should never do by accident).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError, errorMessage } from '../core/errors.js';
import { ALIGNMENT_STANCES, DEFAULT_ALIGNMENT_STANCE, isAlignmentStance, type AlignmentStance } from '../core/judge-answer.js';

export { ALIGNMENT_STANCES, DEFAULT_ALIGNMENT_STANCE, type AlignmentStance };

/**
 * A judge task: the id of a judge metric (the registry's metrics of kind `judge`), or `checklist` (deriving
 * checklists). The caller names the known tasks (`tasks` below), so that this module does not list metrics.
 */
export type JudgeTask = string;
export const CHECKLIST_TASK = 'checklist';
/** The judge task of the requirement-test agent (a `models` key): its model runs natural-language tests. */
export const AGENT_TASK = 'requirement-tests';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

export type ResponseFormatMode = 'json_schema' | 'json_object' | 'none';

export interface JudgeSettings {
  baseURL?: string;
  apiKey?: string;
  /** Default model for every task. */
  model?: string;
  /** Per-task model overrides. */
  models: Partial<Record<JudgeTask, string>>;
  /** Per request attempt. */
  timeoutMs: number;
  /** Retries of one request on 408/409/429/5xx, connection errors and timeouts (the openai client's backoff). */
  maxRetries: number;
  /** Extra attempts after a malformed or invalid answer. */
  invalidRetries: number;
  /** Requests in flight at once (one queue per client). */
  concurrency: number;
  /** Ask each judge this many times (`--judge-repeats`); the score is the mean, the spread is reported. */
  repeats: number;
  /** Wall-clock limit for all judge calls of one artifact. */
  deadlineMs: number;
  temperature: number;
  maxTokens: number;
  /** Most structured response format to ask for; falls back to a lesser one when the server rejects it. */
  responseFormat: ResponseFormatMode;
  prices: Record<string, ModelPrice>;
  /** Folder of the answer cache; null disables caching. */
  cacheDir: string | null;
  /** Size limit of the page code put into one prompt (see untrusted.ts for the truncation policy). */
  maxSourceChars: number;
  /** Stance of the alignment judges (`--alignment`): the study's (default) or our strict one. */
  alignment: AlignmentStance;
  /** Caps of the agent that runs natural-language requirement tests (gather/interaction/requirement-tests/agent.ts). */
  agent: AgentCaps;
}

/** The requirement-test agent's caps, per test (config key `agent`, flags `--agent-steps/-tokens/-time`). */
export interface AgentCaps {
  /** Steps the agent may take before it must have answered. */
  maxSteps: number;
  /** Prompt + completion tokens over all its calls for one test. */
  maxTokens: number;
  /** Wall-clock milliseconds for one test, its calls and steps included. */
  timeMs: number;
  /** Send a screenshot of the page with every observation (a vision model). */
  vision: boolean;
}

export const DEFAULT_AGENT_CAPS: AgentCaps = { maxSteps: 12, maxTokens: 200_000, timeMs: 180_000, vision: true };

/** The agent's caps from the config file's `agent` object. */
function parseAgentCaps(v: unknown, where: string): AgentCaps {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new InputError(`${where}: "agent" must be an object {"maxSteps", "maxTokens", "timeSeconds", "vision"}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!['maxSteps', 'maxTokens', 'timeSeconds', 'vision'].includes(k)) throw new InputError(`${where}: unknown key "agent.${k}"`);
  const out = { ...DEFAULT_AGENT_CAPS };
  const steps = num(o, 'maxSteps', 1, true, `${where}: agent`);
  if (steps !== undefined) out.maxSteps = steps;
  const tokens = num(o, 'maxTokens', 1, true, `${where}: agent`);
  if (tokens !== undefined) out.maxTokens = tokens;
  const t = num(o, 'timeSeconds', 1, false, `${where}: agent`);
  if (t !== undefined) out.timeMs = t * 1000;
  if (o.vision !== undefined) {
    if (typeof o.vision !== 'boolean') throw new InputError(`${where}: "agent.vision" must be true or false`);
    out.vision = o.vision;
  }
  return out;
}

export const DEFAULT_JUDGE_SETTINGS: JudgeSettings = {
  models: {},
  timeoutMs: 120_000,
  maxRetries: 2,
  invalidRetries: 1,
  // One `score` asks five judges: all five at once (4 sent them as two waves of a judge's latency), with room
  // for a repeat or the checklist task beside them.
  concurrency: 8,
  repeats: 1,
  deadlineMs: 600_000,
  temperature: 0,
  maxTokens: 4096,
  responseFormat: 'json_schema',
  prices: {},
  cacheDir: null,
  maxSourceChars: 60_000,
  alignment: DEFAULT_ALIGNMENT_STANCE,
  agent: DEFAULT_AGENT_CAPS,
};

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEBGRADE_CACHE_DIR) return join(env.WEBGRADE_CACHE_DIR, 'judges');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'webgrade', 'judges');
}

/** Flags as commander hands them over (see cli-options.ts). */
export interface JudgeFlags {
  judgeConfig?: string;
  judgeBaseUrl?: string;
  judgeModel?: string;
  judgeRepeats?: number;
  judgeTimeout?: number;
  judgeConcurrency?: number;
  /** `--no-judge-cache` sets this to false. */
  judgeCache?: boolean;
  /** `--alignment study|strict`. */
  alignment?: AlignmentStance;
  /** `--agent-steps`, `--agent-tokens`, `--agent-time <seconds>`: the requirement-test agent's caps. */
  agentSteps?: number;
  agentTokens?: number;
  agentTime?: number;
}

const CONFIG_KEYS = new Set([
  'baseURL',
  'apiKey',
  'apiKeyEnv',
  'model',
  'models',
  'timeoutSeconds',
  'maxRetries',
  'invalidRetries',
  'concurrency',
  'repeats',
  'deadlineSeconds',
  'temperature',
  'maxTokens',
  'responseFormat',
  'prices',
  'cache',
  'cacheDir',
  'maxSourceChars',
  'alignment',
  'agent',
]);

function num(o: Record<string, unknown>, key: string, min: number, integer: boolean, where: string): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    throw new InputError(`${where}: "${key}" must be ${integer ? 'a whole number' : 'a number'} ≥ ${min}`);
  }
  return v;
}

function str(o: Record<string, unknown>, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new InputError(`${where}: "${key}" must be a non-empty string`);
  return v;
}

/** Parse a config object (already JSON-decoded) into partial settings. */
/** `tasks`: the judge tasks a `models` key may name (every judge metric id and `checklist`). */
export function parseJudgeConfig(value: unknown, where: string, env: NodeJS.ProcessEnv = process.env, tasks?: readonly string[]): Partial<JudgeSettings> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InputError(`${where}: expected a JSON object`);
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!CONFIG_KEYS.has(k)) throw new InputError(`${where}: unknown key "${k}"`);
  const out: Partial<JudgeSettings> = {};
  const baseURL = str(o, 'baseURL', where);
  if (baseURL) out.baseURL = baseURL;
  const apiKey = str(o, 'apiKey', where);
  if (apiKey) out.apiKey = apiKey;
  const apiKeyEnv = str(o, 'apiKeyEnv', where);
  if (apiKeyEnv && !apiKey) {
    const v = env[apiKeyEnv];
    if (!v) throw new InputError(`${where}: "apiKeyEnv" names ${apiKeyEnv}, which is not set`);
    out.apiKey = v;
  }
  const model = str(o, 'model', where);
  if (model) out.model = model;
  if (o.models !== undefined) {
    if (!o.models || typeof o.models !== 'object' || Array.isArray(o.models)) throw new InputError(`${where}: "models" must be an object`);
    out.models = {};
    for (const [task, m] of Object.entries(o.models as Record<string, unknown>)) {
      if (tasks && !tasks.includes(task)) {
        throw new InputError(`${where}: "models" key "${task}" is not a judge task (${tasks.join(', ')})`);
      }
      if (typeof m !== 'string' || !m.trim()) throw new InputError(`${where}: models.${task} must be a model name`);
      out.models[task as JudgeTask] = m;
    }
  }
  const t = num(o, 'timeoutSeconds', 0.001, false, where);
  if (t !== undefined) out.timeoutMs = t * 1000;
  const d = num(o, 'deadlineSeconds', 0.001, false, where);
  if (d !== undefined) out.deadlineMs = d * 1000;
  const ints: Array<[keyof JudgeSettings & string, number]> = [
    ['maxRetries', 0],
    ['invalidRetries', 0],
    ['concurrency', 1],
    ['repeats', 1],
    ['maxTokens', 1],
    ['maxSourceChars', 1000],
  ];
  for (const [k, min] of ints) {
    const v = num(o, k, min, true, where);
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  const temp = num(o, 'temperature', 0, false, where);
  if (temp !== undefined) out.temperature = temp;
  if (o.responseFormat !== undefined) {
    if (o.responseFormat !== 'json_schema' && o.responseFormat !== 'json_object' && o.responseFormat !== 'none') {
      throw new InputError(`${where}: "responseFormat" must be "json_schema", "json_object" or "none"`);
    }
    out.responseFormat = o.responseFormat;
  }
  if (o.prices !== undefined) {
    if (!o.prices || typeof o.prices !== 'object' || Array.isArray(o.prices)) throw new InputError(`${where}: "prices" must be an object`);
    out.prices = {};
    for (const [m, p] of Object.entries(o.prices as Record<string, unknown>)) {
      const po = p as Record<string, unknown> | null;
      if (!po || typeof po !== 'object' || typeof po.input !== 'number' || typeof po.output !== 'number' || po.input < 0 || po.output < 0) {
        throw new InputError(`${where}: prices.${m} must be {"input": USD per 1M tokens, "output": USD per 1M tokens}`);
      }
      out.prices[m] = { input: po.input, output: po.output };
    }
  }
  if (o.cache !== undefined) {
    if (typeof o.cache !== 'boolean') throw new InputError(`${where}: "cache" must be true or false`);
    if (!o.cache) out.cacheDir = null;
  }
  const cacheDir = str(o, 'cacheDir', where);
  if (cacheDir && o.cache !== false) out.cacheDir = cacheDir;
  if (o.alignment !== undefined) {
    if (!isAlignmentStance(o.alignment)) throw new InputError(`${where}: "alignment" must be ${ALIGNMENT_STANCES.map((x) => `"${x}"`).join(' or ')}`);
    out.alignment = o.alignment;
  }
  if (o.agent !== undefined) out.agent = parseAgentCaps(o.agent, where);
  return out;
}

export function loadJudgeConfig(path: string, env: NodeJS.ProcessEnv = process.env, tasks?: readonly string[]): Partial<JudgeSettings> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`judge config ${path}: ${code === 'ENOENT' ? 'no such file' : errorMessage(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`judge config ${path}: not valid JSON (${errorMessage(err)})`);
  }
  return parseJudgeConfig(value, `judge config ${path}`, env, tasks);
}

/**
 * Merge flags > config file > environment > defaults into complete settings (`tasks`: see parseJudgeConfig).
 * `defaults` replaces some of the defaults (a batch's judge stage runs more calls at once: distribute/judge-stage.ts).
 */
export function resolveJudgeSettings(
  flags: JudgeFlags = {},
  env: NodeJS.ProcessEnv = process.env,
  tasks?: readonly string[],
  defaults: Partial<Pick<JudgeSettings, 'concurrency'>> = {},
): JudgeSettings {
  const s: JudgeSettings = { ...DEFAULT_JUDGE_SETTINGS, ...defaults, models: {}, prices: {}, cacheDir: defaultCacheDir(env) };
  if (env.OPENAI_BASE_URL) s.baseURL = env.OPENAI_BASE_URL;
  if (env.OPENAI_API_KEY) s.apiKey = env.OPENAI_API_KEY;
  if (env.WEBGRADE_JUDGE_MODEL) s.model = env.WEBGRADE_JUDGE_MODEL;
  const configPath = flags.judgeConfig ?? env.WEBGRADE_JUDGE_CONFIG;
  if (configPath) {
    const c = loadJudgeConfig(configPath, env, tasks);
    Object.assign(s, { ...c, models: { ...s.models, ...c.models }, prices: { ...s.prices, ...c.prices } });
  }
  if (flags.judgeBaseUrl) s.baseURL = flags.judgeBaseUrl;
  if (flags.judgeModel) s.model = flags.judgeModel;
  if (flags.judgeRepeats !== undefined) s.repeats = flags.judgeRepeats;
  if (flags.judgeTimeout !== undefined) s.timeoutMs = flags.judgeTimeout * 1000;
  if (flags.judgeConcurrency !== undefined) s.concurrency = flags.judgeConcurrency;
  if (flags.judgeCache === false) s.cacheDir = null;
  if (flags.alignment !== undefined) s.alignment = flags.alignment;
  s.agent = { ...s.agent };
  if (flags.agentSteps !== undefined) s.agent.maxSteps = flags.agentSteps;
  if (flags.agentTokens !== undefined) s.agent.maxTokens = flags.agentTokens;
  if (flags.agentTime !== undefined) s.agent.timeMs = flags.agentTime * 1000;
  return s;
}

export function modelFor(settings: JudgeSettings, task: JudgeTask): string | undefined {
  return settings.models[task] ?? settings.model;
}

/** Why no judge can be asked for `task`, or null when one can. */
export function notConfiguredReason(settings: JudgeSettings | undefined, task: JudgeTask): string | null {
  if (!settings) return 'no judge configured';
  const model = modelFor(settings, task);
  if (!model && !settings.baseURL && !settings.apiKey) {
    return 'no judge configured (set --judge-base-url/OPENAI_BASE_URL and --judge-model/WEBGRADE_JUDGE_MODEL, or --judge-config)';
  }
  if (!model) return `no judge model configured for ${task} (set --judge-model/WEBGRADE_JUDGE_MODEL or "models" in --judge-config)`;
  if (!settings.baseURL && !settings.apiKey) return 'no judge endpoint configured (set --judge-base-url/OPENAI_BASE_URL or OPENAI_API_KEY)';
  return null;
}
