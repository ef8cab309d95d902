/**
 * The font families that actually rendered the page's text (BrowserEvidence.fonts): Chrome's
 * `CSS.getPlatformFontsForNode` gives the family of the font file used, a web font or a system font, and how many
 * glyphs it drew; summed over the text of the first FONT_SAMPLE_ELEMENTS elements of the body, most glyphs first.
 * Says whether an emoji or CJK fallback, or a CDN web font, was in use.
 */
import type { BrowserEvidence, FontUse } from '../../core/browser-evidence.js';
import { COLLECTOR_TIMEOUT_MS } from '../time.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

/** At most this many elements are asked which fonts rendered their text (the first ones in document order). */
export const FONT_SAMPLE_ELEMENTS = 400;

type PlatformFonts = { fonts: Array<{ familyName: string; isCustomFont: boolean; glyphCount: number }> };

export const fontsCollector: VisitCollector<FontUse[]> = {
  field: 'fonts',
  name: 'fonts',
  limit: COLLECTOR_TIMEOUT_MS,

  start: ({ enableCss }: VisitContext) => enableCss(),

  async collect({ cdp }: VisitContext): Promise<FontUse[]> {
    const { root } = (await cdp.send('DOM.getDocument', { depth: 0 })) as { root: { nodeId: number } };
    const { nodeIds } = (await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: 'body, body *' })) as { nodeIds: number[] };
    const answers = await Promise.all(
      nodeIds
        .slice(0, FONT_SAMPLE_ELEMENTS)
        .map((nodeId) => (cdp.send('CSS.getPlatformFontsForNode', { nodeId }) as Promise<PlatformFonts>).catch(() => ({ fonts: [] }))),
    );
    const byFamily = new Map<string, FontUse>();
    for (const a of answers) {
      for (const f of a.fonts) {
        const u = byFamily.get(f.familyName) ?? { family: f.familyName, glyphs: 0, webFont: f.isCustomFont };
        u.glyphs += f.glyphCount;
        byFamily.set(f.familyName, u);
      }
    }
    return [...byFamily.values()].sort((a, b) => b.glyphs - a.glyphs);
  },

  fill(ev: BrowserEvidence, fonts: FontUse[] | undefined): void {
    if (fonts) ev.fonts = fonts;
  },
};
