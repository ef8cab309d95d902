/**
 * Operators for the content perspective: copywriting, placeholder-quality, media-quality, resource-validity.
 */
import { blurred, encodeDataUri, isRaster, naturalSize, pageImages, type PageImage } from '../images.js';
import sharp from 'sharp';
import { applied, notApplicable, type MutationOperator } from '../operator.js';
import type { Mutation, PageModel } from '../page.js';

/** The metrics that read the screenshot: an edit that changes what is drawn moves them. */
const SCREEN = ['layout-consistency', 'layout-sparsity', 'color-harmony', 'visual-experience'];

export const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. TODO: write the real text here.';

/** Placeholder copy: a lorem ipsum paragraph with a TODO, at the end of the page. */
export const loremIpsum: MutationOperator = {
  id: 'lorem-ipsum',
  targets: ['copywriting'],
  collateral: SCREEN,
  description: 'a paragraph of lorem ipsum with a "TODO" at the end of <body>',
  apply(_page, edit) {
    edit.insertAtBodyEnd(`<p>${LOREM}</p>`);
    return applied('inserted <p>Lorem ipsum ... TODO ...</p> before </body>');
  },
};

/** Point an image somewhere else: its `src`, and the `srcset`s that would win over it. */
function repoint(page: PageModel, edit: Mutation, img: Element, url: string): void {
  edit.setAttribute(img, 'src', url);
  if (img.hasAttribute('srcset')) edit.removeAttribute(img, 'srcset');
  const picture = img.parentElement?.localName === 'picture' ? img.parentElement : null;
  if (picture)
    for (const s of Array.from(picture.querySelectorAll('source'))) if (page.located(s) && s.hasAttribute('srcset')) edit.setAttribute(s, 'srcset', url);
}

/** The first image, preferring ones outside `<picture>` (a single source to change). */
function firstImage(images: PageImage[]): PageImage | undefined {
  return images.find((i) => i.el.parentElement?.localName !== 'picture') ?? images[0];
}

export const PLACEHOLDER_URL = 'https://via.placeholder.com/600x400';

export const placeholderImage: MutationOperator = {
  id: 'placeholder-image',
  targets: ['placeholder-quality'],
  collateral: ['media-quality', 'resource-validity', 'best-practices', ...SCREEN],
  description: `the first <img> pointed at a placeholder service (${PLACEHOLDER_URL})`,
  apply(page, edit) {
    const img = firstImage(pageImages(page).filter((i) => !i.src.includes('placeholder')));
    if (!img) return notApplicable('the page has no <img> with a src');
    repoint(page, edit, img.el, PLACEHOLDER_URL);
    return applied(`<img src="${short(img.src)}"> → src="${PLACEHOLDER_URL}"`);
  },
};

export const PLACEHOLDER_IMG = `<img src="${PLACEHOLDER_URL}" alt="Product photo" width="300" height="200">`;

/** A placeholder-service image added, for pages with no <img> to repoint (placeholder-image's case). */
export const insertPlaceholder: MutationOperator = {
  id: 'insert-placeholder',
  targets: ['placeholder-quality'],
  inserts: true,
  collateral: ['media-quality', 'resource-validity', 'best-practices', 'console-errors', 'performance', 'accessibility', ...SCREEN],
  description: `an <img> of a placeholder service (${PLACEHOLDER_URL}, 300×200) at the end of <body>`,
  apply(_page, edit) {
    edit.insertAtBodyEnd(PLACEHOLDER_IMG);
    return applied(`inserted <img src="${PLACEHOLDER_URL}"> before </body>`);
  },
};

/** A flat grey PNG, 240×160: no edge anywhere, so the variance of its Laplacian (media-quality's sharpness) is 0. */
export async function flatPng(): Promise<Buffer> {
  return sharp({ create: { width: 240, height: 160, channels: 3, background: { r: 150, g: 156, b: 165 } } })
    .png()
    .toBuffer();
}

/** A blurry image without alt text added, for pages with no raster image of their own to blur (blur-image's case). */
export const insertBlurryImage: MutationOperator = {
  id: 'insert-blurry-image',
  targets: ['media-quality'],
  inserts: true,
  collateral: ['placeholder-quality', 'accessibility', 'performance', 'best-practices', ...SCREEN],
  description: 'an <img> without alt, a flat grey 240×160 PNG (data: URI, no detail at all), at the end of <body>',
  async apply(_page, edit) {
    edit.insertAtBodyEnd(`<img src="${encodeDataUri('image/png', await flatPng())}" width="240" height="160">`);
    return applied('inserted a flat grey 240×160 <img> without alt before </body>');
  },
};

export const MISSING_IMAGE = 'webgrade-mutant-missing.png';
export const MISSING_SCRIPT = 'webgrade-mutant-missing.js';

export const missingImage: MutationOperator = {
  id: 'missing-image',
  targets: ['resource-validity', 'console-errors'],
  collateral: ['media-quality', 'placeholder-quality', 'best-practices', 'accessibility', ...SCREEN],
  description: `the first <img> pointed at a file the artifact does not have (${MISSING_IMAGE})`,
  apply(page, edit) {
    const img = firstImage(pageImages(page));
    if (!img) return notApplicable('the page has no <img> with a src');
    repoint(page, edit, img.el, MISSING_IMAGE);
    return applied(`<img src="${short(img.src)}"> → src="${MISSING_IMAGE}"`);
  },
};

export const missingScript: MutationOperator = {
  id: 'missing-script',
  targets: ['resource-validity', 'console-errors'],
  collateral: ['best-practices'],
  description: `a <script src="${MISSING_SCRIPT}"> (a file the artifact does not have) at the end of <body>`,
  apply(_page, edit) {
    edit.insertAtBodyEnd(`<script src="${MISSING_SCRIPT}"></script>`);
    return applied(`inserted <script src="${MISSING_SCRIPT}"></script> before </body>`);
  },
};

/** Raster images whose bytes are in the artifact (a file or a data: URI), in document order. */
function ownRasters(page: PageModel): PageImage[] {
  return pageImages(page).filter(isRaster);
}

export const stretchImage: MutationOperator = {
  id: 'stretch-image',
  targets: ['placeholder-quality'],
  collateral: ['media-quality', 'best-practices', ...SCREEN],
  description: 'the first raster <img> with bytes in the artifact drawn at twice its aspect ratio (inline width/height, object-fit: fill)',
  async apply(page, edit) {
    for (const img of ownRasters(page)) {
      const size = await naturalSize(img.bytes!);
      if (!size) continue;
      const width = Math.round(Math.min(480, Math.max(80, size.width)));
      const height = Math.max(16, Math.round(width / (size.width / size.height) / 2));
      edit.addInlineStyle(img.el, `width: ${width}px !important; height: ${height}px !important; max-width: none !important; object-fit: fill !important;`);
      return applied(`<img src="${short(img.src)}"> (${size.width}×${size.height}) drawn at ${width}×${height}`);
    }
    return notApplicable('no raster <img> whose bytes are in the artifact (a local file or a data: URI)');
  },
};

export const blurImage: MutationOperator = {
  id: 'blur-image',
  targets: ['media-quality'],
  collateral: SCREEN,
  description: 'the first raster <img> with bytes in the artifact replaced by a Gaussian-blurred copy (sigma = width / 25)',
  async apply(page, edit) {
    for (const img of ownRasters(page)) {
      const out = await blurred(img.bytes!, img.mime!);
      if (!out) continue;
      if (img.where === 'data') edit.setAttribute(img.el, 'src', encodeDataUri(img.mime!, out));
      else edit.writeBinary(img.path!, out);
      return applied(`${img.where === 'data' ? 'data: image' : img.path} blurred`);
    }
    return notApplicable('no raster <img> whose bytes are in the artifact (a local file or a data: URI)');
  },
};

function short(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}

export const CONTENT_OPERATORS: readonly MutationOperator[] = [
  loremIpsum,
  placeholderImage,
  insertPlaceholder,
  stretchImage,
  blurImage,
  insertBlurryImage,
  missingImage,
  missingScript,
];
