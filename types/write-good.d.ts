/** Minimal types for write-good (no published @types package). */
declare module 'write-good' {
  interface Suggestion {
    index: number;
    offset: number;
    reason: string;
  }
  type Options = Partial<Record<'passive' | 'illusion' | 'so' | 'thereIs' | 'weasel' | 'adverb' | 'tooWordy' | 'cliches' | 'eprime', boolean>>;
  function writeGood(text: string, options?: Options): Suggestion[];
  export default writeGood;
}
