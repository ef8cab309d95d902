/**
 * Requirements JSONL (SPEC "Inputs"): one request per line,
 * `{"id", "requirement", "checklist": {"functional", "visual", "content"}, "labels": {...}, "assets": [...]}`;
 * everything except `id` and `requirement` is optional. Blank lines are skipped; any other unreadable line is
 * an InputError naming its line number.
 *
 * Interpretation: ArtifactsBench-style lines (`index`, `question`, `checklist: [{title, description}]`) are
 * accepted too, since that is the largest public set of such requests: `index` becomes the id, `question` the
 * requirement, and their checklist items become functional items (they are not split by kind there).
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { InputError, errorMessage, readInputText } from './errors.js';
import { parseTests, type RequirementTest } from './requirement-tests.js';

export interface Checklist {
  functional: string[];
  visual: string[];
  content: string[];
}

export interface RequirementLabels {
  category?: string;
  clarity?: string;
  style?: string;
  complexity?: string;
  modality?: string;
  [key: string]: string | undefined;
}

export interface Requirement {
  id: string;
  requirement: string;
  checklist?: Checklist;
  labels?: RequirementLabels;
  assets?: string[];
  /**
   * The design the page should reproduce (the fidelity metrics): a path, relative to the requirements file in the
   * JSONL and absolute after loading; an .html file, a folder with index.html or a .png picture.
   */
  reference?: string;
  /** Requirement tests (SPEC "Requirement tests"; core/requirement-tests.ts). */
  tests?: RequirementTest[];
}

function stringList(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`${where} must be a list`);
  return v.map((item, i) => {
    if (typeof item === 'string') return item;
    if (item && typeof item === 'object') {
      const o = item as Record<string, unknown>;
      const t = [o.title, o.description].filter((x) => typeof x === 'string').join(': ');
      if (t) return t;
    }
    throw new Error(`${where}[${i}] must be a string`);
  });
}

/** Validate one parsed JSON value as a requirement. Throws Error with a short message. */
export function parseRequirement(value: unknown): Requirement {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected a JSON object');
  const o = value as Record<string, unknown>;
  const rawId = o.id ?? o.index;
  if (typeof rawId !== 'string' && typeof rawId !== 'number') throw new Error('missing "id"');
  const id = String(rawId);
  if (!/^[\w.-]+$/.test(id)) throw new Error(`"id" ${JSON.stringify(id)} may only hold letters, digits, "_", "-" and "."`);
  const text = o.requirement ?? o.question;
  if (typeof text !== 'string' || text.trim() === '') throw new Error('missing "requirement" text');
  const req: Requirement = { id, requirement: text };
  if (o.checklist !== undefined) {
    if (Array.isArray(o.checklist)) {
      req.checklist = { functional: stringList(o.checklist, 'checklist'), visual: [], content: [] };
    } else if (o.checklist && typeof o.checklist === 'object') {
      const c = o.checklist as Record<string, unknown>;
      req.checklist = {
        functional: stringList(c.functional, 'checklist.functional'),
        visual: stringList(c.visual, 'checklist.visual'),
        content: stringList(c.content, 'checklist.content'),
      };
    } else throw new Error('"checklist" must be an object');
  }
  const labels = o.labels ?? (o.class || o.difficulty ? { category: o.class, complexity: o.difficulty } : undefined);
  if (labels !== undefined) {
    if (!labels || typeof labels !== 'object' || Array.isArray(labels)) throw new Error('"labels" must be an object');
    req.labels = {};
    for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
      if (v === undefined || v === null) continue;
      req.labels[k] = String(v);
    }
  }
  if (o.assets !== undefined) req.assets = stringList(o.assets, 'assets');
  if (o.reference !== undefined && o.reference !== null) {
    if (typeof o.reference !== 'string' || o.reference.trim() === '') throw new Error('"reference" must be a path (string)');
    req.reference = o.reference;
  }
  if (o.tests !== undefined) req.tests = parseTests(o.tests);
  return req;
}

/**
 * Parse requirements JSONL text; `name` is used in error messages. With `baseDir`, each `reference` is resolved
 * against it (the requirements file's folder) and must exist.
 */
export function parseRequirementsJsonl(text: string, name: string, baseDir?: string): Requirement[] {
  const out: Requirement[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new InputError(`${name}:${i + 1}: not valid JSON`);
    }
    let req: Requirement;
    try {
      req = parseRequirement(value);
    } catch (err) {
      throw new InputError(`${name}:${i + 1}: ${errorMessage(err)}`);
    }
    if (seen.has(req.id)) throw new InputError(`${name}:${i + 1}: duplicate id ${JSON.stringify(req.id)}`);
    if (req.reference !== undefined && baseDir !== undefined) {
      const abs = isAbsolute(req.reference) ? req.reference : resolve(baseDir, req.reference);
      if (!existsSync(abs)) throw new InputError(`${name}:${i + 1}: reference ${req.reference}: no such file or folder`);
      req.reference = abs;
    }
    seen.add(req.id);
    out.push(req);
  });
  return out;
}

export function loadRequirements(path: string): Requirement[] {
  const text = readInputText(path);
  return parseRequirementsJsonl(text, path, dirname(resolve(path)));
}

/** Resolve `reqs.jsonl#id`. */
export function loadRequirementRef(ref: string): Requirement {
  const hash = ref.lastIndexOf('#');
  if (hash < 0) throw new InputError(`--requirement ${ref}: expected <file.jsonl>#<id>`);
  const file = ref.slice(0, hash);
  const id = ref.slice(hash + 1);
  const req = loadRequirements(file).find((r) => r.id === id);
  if (!req) throw new InputError(`${file}: no requirement with id ${JSON.stringify(id)}`);
  return req;
}
