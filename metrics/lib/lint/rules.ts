/**
 * The one rule set per linter that the `lint` metric (SPEC #5) uses. Every rule is at error level and was
 * chosen because a finding is a defect a user can hit (code that throws, a declaration the browser drops, markup
 * the parser repairs in a way the author did not mean), not a matter of style: no formatting, naming, ordering,
 * "unused" or best-practice rules. Accessibility and best practices have their own metrics (Lighthouse).
 */
import type { Linter } from 'eslint';

/** ESLint (flat config rules). Parsing errors are reported by ESLint itself and count as one error each. */
export const ESLINT_RULES: Linter.RulesRecord = {
  // names that do not exist: a ReferenceError at run time (see page-globals.ts for the globals declared)
  'no-undef': ['error', { typeof: false }],
  // duplicates that silently drop code
  'no-dupe-keys': 'error',
  'no-dupe-class-members': 'error',
  'no-dupe-args': 'error',
  'no-duplicate-case': 'error',
  'no-dupe-else-if': 'error',
  // assignments that throw or are lost
  'no-const-assign': 'error',
  'no-class-assign': 'error',
  'no-func-assign': 'error',
  'no-import-assign': 'error',
  'no-ex-assign': 'error',
  'no-global-assign': 'error',
  'no-setter-return': 'error',
  'getter-return': 'error',
  // calls and operators that cannot work
  'no-obj-calls': 'error',
  'no-new-native-nonconstructor': 'error',
  'no-unsafe-negation': 'error',
  'no-unsafe-optional-chaining': 'error',
  'use-isnan': 'error',
  'valid-typeof': 'error',
  'no-compare-neg-zero': 'error',
  'no-invalid-regexp': 'error',
  'no-empty-character-class': 'error',
  'no-loss-of-precision': 'error',
  'for-direction': 'error',
  'no-unexpected-multiline': 'error',
  // dead or mis-flowing code
  'no-unreachable': 'error',
  'no-unsafe-finally': 'error',
  'no-self-assign': 'error',
  // classes
  'constructor-super': 'error',
  'no-this-before-super': 'error',
};

/**
 * stylelint rules. `true` = error severity. CSS syntax errors (`CssSyntaxError`) count as one error each.
 * `@tailwind`/`@apply`-style at-rules of Tailwind are not "unknown" (pages use Tailwind's browser build).
 */
export const STYLELINT_CONFIG = {
  rules: {
    'annotation-no-unknown': true,
    'at-rule-no-unknown': [true, { ignoreAtRules: ['tailwind', 'apply', 'config', 'theme', 'plugin', 'utility', 'variant', 'custom-variant', 'source', 'reference', 'screen', 'responsive', 'variants'] }],
    'at-rule-descriptor-no-unknown': true,
    'color-no-invalid-hex': true,
    'custom-property-no-missing-var-function': true,
    'declaration-block-no-duplicate-custom-properties': true,
    // fallbacks written for old browsers (`display: -webkit-box; display: flex`) are not duplicates
    'declaration-block-no-duplicate-properties': [true, { ignore: ['consecutive-duplicates-with-different-syntaxes'] }],
    'declaration-block-no-shorthand-property-overrides': true,
    // a value the property does not accept (`cursor: hand`, `text-align: centre`, `display: flexbox`, a negative
    // radius, `linear-gradient(top, ...)`): the browser drops the declaration. Vendor-prefixed properties and
    // values are written for particular engines and not judged. A finding that another rule already reports
    // inside the same value (an unknown unit, an invalid hex colour, an unknown function) counts once (lint.ts).
    // Found by mutation testing (webgrade mutate, operator invalid-css-value): without it lint saw none of them.
    'declaration-property-value-no-unknown': [true, { ignoreProperties: { '/^-(webkit|moz|ms|o)-/': ['/.*/'], '/^(?!-).*/': ['/-(webkit|moz|ms|o)-/'] } }],
    'font-family-no-duplicate-names': true,
    'function-calc-no-unspaced-operator': true,
    'function-linear-gradient-no-nonstandard-direction': true,
    'function-no-unknown': true,
    'keyframe-block-no-duplicate-selectors': true,
    'keyframe-declaration-no-important': true,
    'media-feature-name-no-unknown': true,
    'named-grid-areas-no-invalid': true,
    'no-duplicate-at-import-rules': true,
    'no-invalid-double-slash-comments': true,
    'no-invalid-position-at-import-rule': true,
    'property-no-unknown': true,
    'selector-anb-no-unmatchable': true,
    'selector-pseudo-class-no-unknown': true,
    'selector-pseudo-element-no-unknown': true,
    'selector-type-no-unknown': [true, { ignore: ['custom-elements', 'default-namespace'] }],
    'string-no-newline': true,
    'unit-no-unknown': true,
  },
} as const;

/**
 * htmlhint rules. All report at error level. `tag-pair` findings whose missing end tags are all optional in
 * HTML (`</p>`, `</li>`, `</td>` ...) are dropped by lint.ts: HTML lets those close implicitly.
 */
export const HTMLHINT_RULES: Record<string, boolean> = {
  'doctype-first': true, // no doctype: the page renders in quirks mode
  'tag-pair': true, // unclosed or stray tags
  'attr-no-duplication': true, // the browser keeps only the first
  'id-unique': true, // getElementById/labels/anchors hit the wrong element
  'src-not-empty': true, // an empty src re-requests the page itself
  'tagname-specialchars': true, // malformed tag names
};

/** End tags HTML allows to omit (WHATWG "optional tags"). */
export const OPTIONAL_END_TAGS = new Set([
  'html', 'head', 'body', 'p', 'li', 'dt', 'dd', 'rt', 'rp', 'optgroup', 'option', 'colgroup', 'caption', 'thead',
  'tbody', 'tfoot', 'tr', 'td', 'th',
]);

/**
 * Globals that popular browser libraries define when a page loads them with a classic `<script src>` from a CDN.
 * Their code is not part of the artifact, so ESLint cannot see the declarations; these names are declared only
 * when the artifact has at least one classic script whose code we cannot read (remote, or missing locally).
 */
export const LIBRARY_GLOBALS = [
  // frameworks and DOM helpers
  'React', 'ReactDOM', 'Vue', 'Alpine', 'htmx', 'Babel', 'jQuery', '$', '_', 'Backbone', 'ko', 'angular', 'Preact', 'preact',
  // charts, maps, graphics
  'Chart', 'ChartDataLabels', 'd3', 'Plotly', 'echarts', 'Highcharts', 'ApexCharts', 'vis', 'cytoscape', 'mermaid', 'L',
  'maplibregl', 'mapboxgl', 'THREE', 'PIXI', 'Konva', 'fabric', 'p5', 'Matter', 'Phaser', 'gsap', 'ScrollTrigger',
  'anime', 'Two', 'paper', 'Raphael', 'Vivus', 'lottie', 'confetti', 'Rough', 'rough', 'roughjs',
  // text, markdown, code
  'marked', 'markdownit', 'showdown', 'DOMPurify', 'hljs', 'Prism', 'katex', 'renderMathInElement', 'MathJax',
  'TurndownService', 'turndownPluginGfm', 'Diff', 'Diff2Html', 'Diff2HtmlUI', 'diff_match_patch', 'CodeMirror',
  'monaco', 'require', 'ace', 'sqlFormatter', 'jsyaml', 'YAML', 'Handlebars', 'Mustache', 'ejs', 'prettier',
  'prettierPlugins', 'esprima', 'acorn', 'Terser', 'js_beautify', 'html_beautify', 'css_beautify', 'TOML',
  'Papa', 'Fuse', 'lunr', 'emojione', 'twemoji', 'franc', 'nlp', 'Typo', 'Hyphenopoly',
  // files, media, documents
  'JSZip', 'saveAs', 'pdfjsLib', 'jspdf', 'jsPDF', 'html2canvas', 'domtoimage', 'XLSX', 'ExcelJS', 'mammoth',
  'Tesseract', 'jsQR', 'QRCode', 'qrcode', 'ZXing', 'Html5Qrcode', 'EXIF', 'exifr', 'jsmediatags', 'piexif',
  'Cropper', 'Hls', 'dashjs', 'videojs', 'Plyr', 'WaveSurfer', 'Tone', 'Howl', 'Howler', 'MediaInfo', 'FFmpeg',
  'FFmpegWASM', 'FFmpegUtil', 'GIF', 'gifshot', 'heic2any', 'ImageTracer', 'Potrace', 'pako', 'fflate', 'UPNG', 'UTIF',
  // data, time, utilities
  'moment', 'dayjs', 'luxon', 'dateFns', 'numeral', 'math', 'Decimal', 'BigNumber', 'Big', 'CryptoJS', 'nacl',
  'uuid', 'Sortable', 'interact', 'Hammer', 'Mousetrap', 'hotkeys', 'tippy', 'Popper', 'Swal', 'toastr',
  'Notyf', 'bootstrap', 'flatpickr', 'Pikaday', 'noUiSlider', 'Choices', 'TomSelect', 'Quill', 'tinymce',
  'EasyMDE', 'SimpleMDE', 'Tabulator', 'Handsontable', 'gridjs', 'List', 'Isotope', 'Masonry', 'imagesLoaded',
  'lucide', 'feather', 'FontAwesome', 'AOS', 'Typed', 'Splide', 'Swiper', 'Glide', 'PhotoSwipe', 'GLightbox',
  'io', 'Peer', 'SimplePeer', 'firebase', 'supabase', 'Stripe', 'axios', 'ky', 'ml5', 'tf', 'ort', 'transformers',
  // runtimes
  'loadPyodide', 'pyodide', 'initSqlJs', 'sqlite3InitModule', 'Go', 'V86', 'V86Starter', 'QJS', 'getQuickJS',
  'WebAssembly', 'Module', 'createModule', 'GraphiQL', 'GraphiQLPluginExplorer', 'plausible', 'gtag', 'dataLayer',
  'ga', 'Sentry', 'tailwind', 'mixpanel', 'posthog', 'Prompts', 'prompts', 'diff', 'Mark', 'Mermaid',
] as const;
