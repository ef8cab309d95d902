/** The probe's isolated-world readers' settings, set once by `probeInit` (../page-script.ts sends them). */
export interface ReaderConfig {
  /** Elements fingerprinted per snapshot (document order; the rest are folded into one record). */
  maxElements: number;
}

export const cfg = {} as ReaderConfig;
