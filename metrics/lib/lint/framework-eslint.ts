/**
 * ESLint over a project's component files (`.jsx`, `.tsx`, `.ts`, `.mts`, `.cts`, `.vue`, `.svelte`: the source view
 * of project/source-view.ts), each file read whole by the parser its framework maintains, instead of the
 * JavaScript blocks other metrics read:
 * - `.jsx`: ESLint's own parser (espree) with JSX on; ESLint 10's scope analysis counts JSX names as uses, so
 *   `no-undef` finds a component that was never imported;
 * - `.ts`, `.tsx`, `.mts`, `.cts`: typescript-eslint's parser;
 * - `.vue`: vue-eslint-parser (TypeScript scripts through typescript-eslint's parser) and eslint-plugin-vue's
 *   `flat/essential` rules (the plugin's "errors that break the app" set: invalid directives, duplicate keys,
 *   mutated props, missing `v-for` keys ...);
 * - `.svelte`: svelte-eslint-parser (TypeScript likewise) and eslint-plugin-svelte's `flat/recommended` rules
 *   (which include the compiler's own errors, `svelte/valid-compile`).
 * The rule set is the `lint` metric's one (rules.ts) for all of them, plus the plugin's set for Vue and Svelte; only
 * error-level findings count, as everywhere in `lint`. Interpretations: `no-undef` is off in TypeScript files
 * (typescript-eslint's own advice: it cannot see type-only names, and the compiler checks names) and so is
 * `no-dupe-class-members` (method overloads); Vue's compiler macros (`defineProps` ...) and Svelte 5's runes
 * (`$state` ...) are globals, as their compilers make them.
 */
import type { Linter } from 'eslint';
import type { Artifact, ArtifactFile } from '../../../core/artifact/model.js';
import { errorMessage } from '../../../core/errors.js';
import type { LintFinding, Skipped } from './findings.js';
import { ESLINT_RULES } from './rules.js';

/** Files this module lints (and whose blocks the plain JavaScript pass leaves alone). */
export const FRAMEWORK_FILE = /\.(jsx|tsx|ts|mts|cts|vue|svelte)$/i;

type GlobalsMap = Record<string, boolean | 'readonly' | 'writable' | 'off'>;

interface Kit {
  linter: Linter;
  browser: GlobalsMap;
  ts: Linter.Parser;
  vue: { configs: Record<string, Linter.Config[]> };
  vueParser: Linter.Parser;
  svelte: { configs: Record<string, Linter.Config[]> };
  svelteParser: Linter.Parser;
}

let kit: Promise<Kit> | undefined;

function load(): Promise<Kit> {
  kit ??= (async () => {
    const { Linter: LinterClass } = await import('eslint');
    const globals = (await import('globals')).default as unknown as Record<string, GlobalsMap>;
    return {
      linter: new LinterClass({ configType: 'flat' }),
      browser: { ...globals.browser },
      ts: (await import('@typescript-eslint/parser')) as unknown as Linter.Parser,
      vue: (await import('eslint-plugin-vue')).default as unknown as Kit['vue'],
      vueParser: (await import('vue-eslint-parser')) as unknown as Linter.Parser,
      svelte: (await import('eslint-plugin-svelte')).default as unknown as Kit['svelte'],
      svelteParser: (await import('svelte-eslint-parser')) as unknown as Linter.Parser,
    };
  })();
  return kit;
}

const VUE_MACROS = ['defineProps', 'defineEmits', 'defineExpose', 'defineModel', 'defineOptions', 'defineSlots', 'withDefaults'];
const SVELTE_RUNES = ['$state', '$derived', '$effect', '$props', '$bindable', '$inspect', '$host'];

function configFor(k: Kit, file: ArtifactFile): { config: Linter.Config[]; name: string } {
  const ext = /\.[^.]+$/.exec(file.path)![0].toLowerCase();
  const globals: GlobalsMap = { ...k.browser };
  const ts = /^\.(tsx?|mts|cts)$/.test(ext) || /<script[^>]*\blang\s*=\s*["']ts["']/i.test(file.text ?? '');
  const rules: Linter.RulesRecord = { ...ESLINT_RULES };
  if (ts) {
    rules['no-undef'] = 'off';
    rules['no-dupe-class-members'] = 'off';
  }
  const base: Linter.Config = {
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals, parserOptions: { ecmaFeatures: { jsx: ext === '.jsx' || ext === '.tsx' } } },
  };
  if (ext === '.vue') {
    for (const m of VUE_MACROS) globals[m] = 'readonly';
    const config = [
      ...k.vue.configs['flat/essential']!,
      {
        ...base,
        files: ['**/*.vue'],
        languageOptions: { ...base.languageOptions, parser: k.vueParser, parserOptions: { parser: ts ? k.ts : undefined } },
        rules,
      },
    ];
    return { config, name: 'component.vue' };
  }
  if (ext === '.svelte') {
    for (const r of SVELTE_RUNES) globals[r] = 'readonly';
    const config = [
      ...k.svelte.configs['flat/recommended']!,
      {
        ...base,
        files: ['**/*.svelte'],
        languageOptions: { ...base.languageOptions, parser: k.svelteParser, parserOptions: { parser: ts ? k.ts : undefined } },
        rules,
      },
    ];
    return { config, name: 'component.svelte' };
  }
  const config: Linter.Config[] = [{ ...base, files: [`**/*${ext}`], languageOptions: { ...base.languageOptions, ...(ts ? { parser: k.ts } : {}) }, rules }];
  return { config, name: `component${ext}` };
}

/** Lint every component file of the artifact (module comment); findings in file order. */
export async function lintComponents(artifact: Artifact, out: LintFinding[], skipped: Skipped[]): Promise<void> {
  const files = artifact.files.filter((f) => f.text !== undefined && FRAMEWORK_FILE.test(f.path) && (f.kind === 'js' || f.kind === 'html'));
  if (files.length === 0) return;
  const k = await load();
  for (const f of files) {
    let messages: Linter.LintMessage[];
    try {
      const { config, name } = configFor(k, f);
      messages = k.linter.verify(f.text!, config, name);
    } catch (err) {
      skipped.push({ tool: 'eslint', file: f.path, line: 1, reason: errorMessage(err) });
      continue;
    }
    for (const m of messages) {
      if (m.severity !== 2) continue;
      out.push({ tool: 'eslint', rule: m.ruleId ?? 'parsing-error', file: f.path, line: m.line ?? 1, column: m.column ?? 1, message: m.message });
    }
  }
}
