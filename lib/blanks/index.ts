/**
 * Procedural, photo-like garment blank images ("ghost mannequin" product
 * shots on a light studio background), generated at seed time.
 *
 * How it works: for each silhouette + view + size a grayscale "white garment"
 * template (shading, sheen, alpha mask, background with drop shadow) is built
 * once from SVG panels, folds and seams (template.ts) and cached in memory;
 * each color is then a cheap per-pixel colorization (render.ts).
 * Output is deterministic: same options => same bytes.
 */
import type { Silhouette, View } from './geometry';
import { colorize, encode } from './render';
import { clearTemplateCache, getMask, getTemplate } from './template';
import { parseHex } from './color';

export type { Silhouette, View, ZoneId } from './geometry';
export type { ZoneRect, Zone } from './zones';
export { zonesFor, pixelsPerInch } from './zones';

export const BLANK_SIZE = 2000;

/** Bump when the look changes; used as a cache key by the seeder. */
export const RENDER_VERSION = 'blank-render-v1';

export const SILHOUETTES: readonly Silhouette[] = ['tee', 'longsleeve', 'tank', 'hoodie', 'crewneck', 'polo'];
export const VIEWS: readonly View[] = ['front', 'back'];

export interface RenderedBlank {
  /** JPEG quality 90, size x size (default 2000x2000), sRGB (untagged), baseline libjpeg-turbo */
  image: Buffer;
  /** JPEG 400x400 */
  thumbnail: Buffer;
}

export async function renderBlank(opts: {
  silhouette: Silhouette;
  view: View;
  colorHex: string;
  size?: number;
}): Promise<RenderedBlank> {
  const size = opts.size ?? BLANK_SIZE;
  checkArgs(opts.silhouette, opts.view, size);
  parseHex(opts.colorHex); // validate before doing any work
  const t = await getTemplate(opts.silhouette, opts.view, size);
  return encode(colorize(t, opts.colorHex), size);
}

/** The garment alpha mask of a silhouette/view as a single-channel raw buffer at `size` (255 = garment). */
export async function garmentMask(
  s: Silhouette,
  view: View,
  size: number = BLANK_SIZE,
): Promise<{ data: Buffer; width: number; height: number }> {
  checkArgs(s, view, size);
  const data = await getMask(s, view, size);
  return { data: Buffer.from(data), width: size, height: size };
}

/**
 * Drop all cached templates, masks and fabric textures. The caches are already
 * LRU-bounded (4 templates of ~20 MB each at 2000 px, 16 masks, 4 textures of
 * ~16 MB), so calling this is only needed to release memory after seeding.
 */
export function clearBlankCache(): void {
  clearTemplateCache();
}

function checkArgs(s: Silhouette, view: View, size: number): void {
  if (!SILHOUETTES.includes(s)) throw new Error(`unknown silhouette ${JSON.stringify(s)}`);
  if (!VIEWS.includes(view)) throw new Error(`unknown view ${JSON.stringify(view)}`);
  if (!Number.isInteger(size) || size < 64 || size > 4000) throw new Error(`invalid size ${size}`);
}
