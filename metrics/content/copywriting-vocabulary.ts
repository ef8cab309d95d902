/**
 * The domain vocabularies of `copywriting` (SPEC #12; the module comment of copywriting.ts says how each is
 * scored). The study scores copy against word lists of system operations, compliance terms and technical
 * terminology by lexical matching; these are our lists, written for this project, in two languages:
 * **English** (`en`) and **Simplified Chinese** (`zh-Hans`), the languages of the pages the study and we score.
 * Text in other languages matches nothing here, so these three sub-scores then find nothing to fault.
 *
 * Matching rules (copywriting.ts applies them):
 * - English entries match case-insensitively on word boundaries (a letter or digit right before or after prevents
 *   a match); the text is whitespace-normalised first, so a space in an entry is one space (operation names also
 *   accept a hyphen there: "log-in");
 * - Chinese entries match as substrings (Chinese has no word boundaries), so only compounds that are
 *   unambiguous as substrings are listed (e.g. 最佳 and 销量第一, not 最 or 第一, which occur in 最近 "recently"
 *   and 第一步 "step one");
 * - everything is data: adding an entry needs no code change, and a test checks every entry is well formed.
 */

export type VocabularyLanguage = 'en' | 'zh-Hans';

/**
 * System operations: the verbs and nouns a UI uses for its operations, grouped by operation. A group is one
 * operation named in several ways; using two names of one operation on the controls of one page ("Delete" on
 * one button, "Remove" on another; 登录 and 登陆) is the inconsistency the `operation-terms` sub-score counts.
 * Only names that are true synonyms in UI copy are grouped ("Clear" and "Reset" are different operations).
 */
export const OPERATION_GROUPS: ReadonlyArray<{ operation: string; en: readonly string[]; 'zh-Hans': readonly string[] }> = [
  { operation: 'sign in', en: ['log in', 'login', 'sign in', 'signin', 'log on', 'logon'], 'zh-Hans': ['登录', '登陆', '登入'] },
  { operation: 'sign out', en: ['log out', 'logout', 'sign out', 'signout', 'log off'], 'zh-Hans': ['退出登录', '注销', '登出'] },
  { operation: 'sign up', en: ['sign up', 'signup', 'register', 'create account', 'create an account'], 'zh-Hans': ['注册'] },
  { operation: 'delete', en: ['delete', 'remove'], 'zh-Hans': ['删除', '移除'] },
  { operation: 'edit', en: ['edit', 'modify'], 'zh-Hans': ['编辑', '修改'] },
  { operation: 'cancel', en: ['cancel', 'abort', 'dismiss'], 'zh-Hans': ['取消'] },
  { operation: 'confirm', en: ['confirm', 'ok'], 'zh-Hans': ['确定', '确认'] },
  { operation: 'search', en: ['search', 'look up', 'lookup'], 'zh-Hans': ['搜索', '检索'] },
  { operation: 'settings', en: ['settings', 'preferences', 'options', 'configuration', 'config'], 'zh-Hans': ['设置', '偏好设置', '选项'] },
  { operation: 'refresh', en: ['refresh', 'reload'], 'zh-Hans': ['刷新', '重新加载'] },
];

/**
 * Compliance terms: absolute, superlative or unverifiable claims that advertising rules (e.g. the EU's Unfair
 * Commercial Practices Directive, the US FTC's substantiation doctrine, Article 9 of China's Advertising Law on
 * 最佳/最高级/国家级-style terms) and careful product copy avoid. Each entry is a phrase that is a claim in
 * nearly any context; words that are often neutral ("best" alone, "perfect for", "secure", "free") are not listed.
 * English entries are regular-expression sources (matched case-insensitively, on word boundaries, every
 * quantifier bounded so that matching stays linear); a negation right before a claim ("no guarantee", "not
 * guaranteed", "never revolutionary") makes it a disclaimer, not a claim, and it does not match.
 */
export const COMPLIANCE_TERMS: { en: readonly string[]; 'zh-Hans': readonly string[] } = {
  en: [
    'best in the world',
    "world'?s best",
    'world[- ]class',
    'best[- ]in[- ]class',
    'best ever',
    'the best .{0,20}on the market',
    '(?:the|our) (?:number one|no\\. ?1|#1)',
    'unbeatable',
    'unmatched',
    'unrivall?ed',
    'unparall?eled',
    'second to none',
    'like no other',
    'guaranteed',
    'guarantees?',
    '100 ?% (?:secure|safe|accurate|guaranteed|reliable|effective|private|uptime|satisfaction|risk[- ]free)',
    '(?:completely|totally|fully|absolutely) (?:secure|safe|risk[- ]free|accurate)',
    'unhackable',
    'military[- ]grade',
    'bank[- ](?:level|grade)',
    'risk[- ]free',
    'zero risk',
    'no risk',
    'never fails',
    'always works',
    'bug[- ]free',
    'error[- ]free',
    'flawless(?:ly)?',
    'revolutionary',
    'miracle',
    'clinically proven',
    'scientifically proven',
    'proven to',
    'instant results',
    'lifetime guarantee',
    'industry[- ]leading',
    'the only .{0,20}(?:app|tool|solution|platform|product) (?:that|you)',
  ],
  // Not listed although advertising rules name them, because as substrings they are everyday UI words:
  // 绝对 (绝对路径 "absolute path"), 唯一 (唯一标识 "unique id"), 首选 (首选项 "preferences"), 保证 (请保证网络连接
  // "make sure you are online"), 最好 ("had better"), 特效 ("visual effects"), 永不 alone.
  'zh-Hans': [
    '最佳',
    '最优',
    '最强',
    '最先进',
    '最高级',
    '最安全',
    '顶级',
    '顶尖',
    '极致',
    '绝对安全',
    '绝对有效',
    '国家级',
    '世界级',
    '全球领先',
    '行业领先',
    '遥遥领先',
    '史上最',
    '销量第一',
    '排名第一',
    '行业第一',
    '全网第一',
    '全网唯一',
    '百分之百',
    '100%安全',
    '万能',
    '零风险',
    '无风险',
    '保证有效',
    '保证收益',
    '永不宕机',
    '根治',
    '特效药',
  ],
};

/**
 * Technical terminology: terms whose written form is fixed (brand and format names, acronyms). Each entry is a
 * pattern that finds every way of writing the term (case-insensitive for English) and the accepted forms; a
 * match in any other form ("Javascript", "Github", "json", 登陆 for 登录) is a non-canonical spelling. A match
 * right next to `.`, `/`, `\`, `_`, `-`, `@`, `:`, `#` or `=` is part of a file name, path, MIME type or code
 * ("data.json", "application/json") and is not judged.
 */
export const TECHNICAL_TERMS: ReadonlyArray<{ pattern: string; canonical: readonly string[]; language: VocabularyLanguage }> = [
  { pattern: 'java ?script', canonical: ['JavaScript'], language: 'en' },
  { pattern: 'type ?script', canonical: ['TypeScript'], language: 'en' },
  { pattern: 'git ?hub', canonical: ['GitHub'], language: 'en' },
  { pattern: 'git ?lab', canonical: ['GitLab'], language: 'en' },
  { pattern: 'you ?tube', canonical: ['YouTube'], language: 'en' },
  { pattern: 'linked ?in', canonical: ['LinkedIn'], language: 'en' },
  { pattern: 'word ?press', canonical: ['WordPress'], language: 'en' },
  { pattern: 'pay ?pal', canonical: ['PayPal'], language: 'en' },
  { pattern: 'i ?phone', canonical: ['iPhone'], language: 'en' },
  { pattern: 'i ?pad', canonical: ['iPad'], language: 'en' },
  { pattern: 'ios', canonical: ['iOS'], language: 'en' },
  { pattern: 'mac ?os', canonical: ['macOS', 'Mac OS'], language: 'en' },
  { pattern: 'wi-?fi', canonical: ['Wi-Fi', 'WiFi'], language: 'en' },
  { pattern: 'bluetooth', canonical: ['Bluetooth'], language: 'en' },
  { pattern: 'postgre ?sql', canonical: ['PostgreSQL'], language: 'en' },
  { pattern: 'my ?sql', canonical: ['MySQL'], language: 'en' },
  { pattern: 'sqlite', canonical: ['SQLite'], language: 'en' },
  { pattern: 'mongo ?db', canonical: ['MongoDB'], language: 'en' },
  { pattern: 'node\\.?js', canonical: ['Node.js'], language: 'en' },
  { pattern: 'open ?ai', canonical: ['OpenAI'], language: 'en' },
  { pattern: 'chat ?gpt', canonical: ['ChatGPT'], language: 'en' },
  { pattern: 'json', canonical: ['JSON'], language: 'en' },
  { pattern: 'html5?', canonical: ['HTML', 'HTML5'], language: 'en' },
  { pattern: 'css3?', canonical: ['CSS', 'CSS3'], language: 'en' },
  { pattern: 'url', canonical: ['URL'], language: 'en' },
  { pattern: 'urls', canonical: ['URLs'], language: 'en' },
  { pattern: 'api', canonical: ['API'], language: 'en' },
  { pattern: 'apis', canonical: ['APIs'], language: 'en' },
  { pattern: 'pdf', canonical: ['PDF'], language: 'en' },
  { pattern: 'csv', canonical: ['CSV'], language: 'en' },
  { pattern: 'sql', canonical: ['SQL'], language: 'en' },
  { pattern: 'https?', canonical: ['HTTP', 'HTTPS'], language: 'en' },
  { pattern: 'uuid', canonical: ['UUID'], language: 'en' },
  { pattern: 'svg', canonical: ['SVG'], language: 'en' },
  { pattern: 'png', canonical: ['PNG'], language: 'en' },
  { pattern: 'jpe?g', canonical: ['JPEG', 'JPG'], language: 'en' },
  { pattern: 'qr', canonical: ['QR'], language: 'en' },
  { pattern: 'llms?', canonical: ['LLM', 'LLMs'], language: 'en' },
  { pattern: '登陆', canonical: [], language: 'zh-Hans' },
  { pattern: '帐号', canonical: [], language: 'zh-Hans' },
  { pattern: '帐户', canonical: [], language: 'zh-Hans' },
];
/** For the zh-Hans entries above (no case to compare): the standard form to suggest. */
export const TECHNICAL_TERMS_ZH_STANDARD: Readonly<Record<string, string>> = { 登陆: '登录', 帐号: '账号', 帐户: '账户' };
