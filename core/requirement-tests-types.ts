/**
 * The shapes of requirement tests (SPEC "Requirement tests" is the floor; docs/requirement-tests.md and the JSON
 * Schema core/requirement-tests.schema.json are the full reference). Validation is in requirement-tests-check.ts,
 * the words a person reads in requirement-tests.ts.
 */

export type Locator = string | { text?: string; label?: string; placeholder?: string; role?: string; name?: string; css?: string; nth?: number };

/** A point inside an element (or the viewport): CSS pixels from its top-left corner, or fractions of its size. */
export type Point = { x: number; y: number } | { fx: number; fy: number };

/** A region inside an element (or the viewport): CSS pixels from its top-left corner, or fractions of its size. */
export type Region = { x: number; y: number; width: number; height: number } | { fx: number; fy: number; fw: number; fh: number };

export type Modifier = 'Shift' | 'Control' | 'Alt' | 'Meta';
export type MouseButton = 'left' | 'right' | 'middle';

/** How a mouse step presses: which button, with which keys held, where inside the element. */
export interface Pointer {
  button?: MouseButton;
  modifiers?: Modifier[];
  at?: Point;
}

/** One move of a `mouse` sequence; points are inside the step's `on` element (else the viewport). */
export type MouseOp = { down: Point } | { move: Point; steps?: number } | { up: Point | true } | { wait: number };

/** What any step may carry: a name (`since` compares with the page right after it), and `optional`. */
export interface StepCommon {
  /** Names the state right after this step, for `changed`/`unchanged` with `since`. */
  name?: string;
  /** A locator that finds nothing skips the step (named in the result) instead of failing the test. */
  optional?: boolean;
}

export type Offset = { dx: number; dy: number };

export type TestStep = StepCommon &
  (
    | ({ click: Locator; hold?: number } & Pointer)
    | ({ dblclick: Locator } & Pointer)
    | { hover: Locator; at?: Point }
    | { type: Locator; text: string }
    | { press: string; hold?: number }
    | { keys: string[]; hold?: number }
    | { select: Locator; option: string }
    | { check: Locator }
    | { uncheck: Locator }
    | ({ drag: Locator; to: Locator | Offset } & Pointer)
    | { mouse: MouseOp[]; on?: Locator; button?: MouseButton; modifiers?: Modifier[] }
    | { touch: Locator; at?: Point; hold?: number }
    | { swipe: Locator; to: Offset; at?: Point }
    | { wait: number; real?: boolean }
    | { waitUntil: Expectation; within?: number }
    | { reload: true }
    | { resize: { width: number; height: number } }
    | { repeat: number; steps: TestStep[] }
    | { try: TestStep[] }
    | { read: Locator | 'screen'; as: string; ocr?: boolean; region?: Region }
  );

/** Where something is read from: an element, every canvas, the page's text and address, or the viewport's pixels. */
export type Target = Locator | 'canvas' | 'page' | 'screen';

/** A part of the viewport by thirds (`box` with `at`). */
export type Place = 'top-left' | 'top' | 'top-right' | 'left' | 'center' | 'right' | 'bottom-left' | 'bottom' | 'bottom-right';

/** A number, or the name of one `read` earlier in the test. */
export type NumberRef = number | string;

export type Expectation =
  | { visible: string }
  | { hidden: string }
  | { count: Locator; min?: number; max?: number }
  | { value: Locator; is?: string; matches?: string }
  | { url: string }
  | { storage: string }
  | { changed: Target; since?: string }
  | { unchanged: Target; since?: string }
  | { moving: Locator | 'canvas' | 'screen'; over?: number }
  | { still: Locator | 'canvas' | 'screen'; over?: number }
  | { noErrors: true }
  | { anyOf: Expectation[] }
  | { box: Locator; inside?: boolean; covers?: number; at?: Place }
  | { style: Locator; property: string; is?: string; matches?: string }
  | { pixels: Locator | 'screen'; region?: Region; dominant?: string; color?: string; min?: number; max?: number; differs?: Region; tolerance?: number }
  | { ocr: string; in?: Locator | 'screen'; region?: Region }
  | { number: Locator | 'screen'; ocr?: boolean; region?: Region; gt?: NumberRef; lt?: NumberRef; eq?: NumberRef; approx?: NumberRef; tolerance?: number };

export interface ScriptedTest {
  id: string;
  title?: string;
  steps: TestStep[];
  expect: Expectation[];
  /** Real milliseconds this test may take at most (default TEST_TIME_LIMIT_MS); past it the test is not run to the end. */
  timeLimit?: number;
  /** Always from a fresh restore, never from the state an earlier observing test left. */
  fresh?: boolean;
}

export interface NaturalTest {
  id: string;
  task: string;
  expected: string;
}

export type RequirementTest = ScriptedTest | NaturalTest;

/** A drag's or swipe's target given as an offset. */
export function isOffset(to: Locator | Offset): to is Offset {
  return typeof to === 'object' && 'dx' in to;
}

export function isNaturalTest(t: RequirementTest): t is NaturalTest {
  return 'task' in t;
}

/** The targets that are not locators (a string locator with one of these words means the target, not a text). */
export const SPECIAL_TARGETS = ['canvas', 'page', 'screen'] as const;

/** A box on the after-screenshot (CSS pixels of the page, scroll included). */
export interface TestBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One test's result (SPEC "Requirement tests"). */
export interface RequirementTestResult {
  id: string;
  title?: string;
  /** `scripted`: written by a person; `agent`: the agent's recorded run; `replay`: a recorded run replayed. */
  source: 'scripted' | 'agent' | 'replay';
  /** null: not run (no judge for a natural-language test, the budget, an agent that gave no usable answer). */
  passed: boolean | null;
  /** Why it failed or was not run: the failing step or expectation. */
  reason?: string;
  /** Each step with what it did or why it failed; `skipped`: an optional step whose locator found nothing. */
  steps: Array<{ step: string; ok: boolean; note?: string; skipped?: boolean }>;
  /**
   * Each expectation checked, with what was found; `heldAtStart` (an agent's verdict only): it already held on the
   * restored start state, so it does not count as evidence of a pass (gather/interaction/requirement-tests/agent.ts).
   */
  expectations: Array<{ expect: string; ok: boolean; found?: string; heldAtStart?: boolean }>;
  /** The recorded script of an agent run (for natural-language tests), as a scripted test. */
  recorded?: ScriptedTest & { verdict: boolean; evidence: string };
  /** Where the acted-on elements were, on the after-screenshot. */
  boxes?: TestBox[];
  /** The viewport after the test (PNG), for the report and `--explain --out`. */
  screenshot?: { png: Buffer; width: number; height: number };
  /** Agent accounting (calls, tokens, cost), merged like the judges' usage. */
  usage?: Record<string, unknown>;
  /** The test started from the state an earlier observing test left (no restore of its own): its id. */
  sharedWith?: string;
  ms: number;
}

export interface RequirementTestsEvidence {
  results: RequirementTestResult[];
  /** Why some tests were not run (budget). */
  faults: string[];
  timings: Record<string, number>;
}
