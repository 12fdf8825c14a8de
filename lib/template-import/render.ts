// A render on a template (issue 32, docs/templates.md), one way for the worker's generations and the API's preview:
// each design read through the compositing engine's design cache (prepared levels of uploads, decoded once) at the
// size its smart object needs (designSize: no more pixels than the smart object shows, so the engine never reduces a
// large design itself), then the prepared template rendered with them, and the result encoded like a garment mockup.
import sharp from 'sharp';
import { JPEG_QUALITY, placeDesign, THUMB_QUALITY, type DesignSource, type PlacedDesign } from '../compositing';
import { JPEG_OPTIMIZE_CODING } from '../compositing/composite';
import { compositeGate } from '../compositing/config';
import { THUMB_TARGET } from '../compositing/prepared';
import { designSize, renderTemplate, type PreparedTemplate, type RawImage, type TemplatePlacement } from '../templates';

export interface TemplateDesignSource {
  smartObjectId: string;
  source: DesignSource;
  placement: TemplatePlacement;
}

/** How much larger than its smart object a design is assumed to be when asking designSize for the box. */
const PROBE = 64;

/**
 * The box a design is resized into (keeping its aspect ratio) for a smart object and placement: the size at which
 * one design pixel covers about one output pixel where the smart object is drawn smallest.
 */
export function designBox(
  prepared: PreparedTemplate,
  smartObjectId: string,
  placement: TemplatePlacement,
): { width: number; height: number } {
  const so = prepared.smartObjects.find((s) => s.id === smartObjectId);
  const w = Math.max(1, so?.width ?? 1);
  const h = Math.max(1, so?.height ?? 1);
  // a design of the content's own aspect, much larger than needed: designSize answers the reduced size
  return designSize(prepared, smartObjectId, { width: w * PROBE, height: h * PROBE }, placement);
}

/** A placed design without the 1 px transparent border the garment compositor pads it with. */
function unpad(p: PlacedDesign): RawImage {
  const row = (p.width + 2) * 4;
  const data = Buffer.allocUnsafe(p.width * p.height * 4);
  for (let y = 0; y < p.height; y++)
    p.data.copy(data, y * p.width * 4, (y + 1) * row + 4, (y + 1) * row + 4 + p.width * 4);
  return { width: p.width, height: p.height, data };
}

/** The template rendered with each design in its smart object (RGBA at the template's size). */
export async function renderOnTemplate(
  prepared: PreparedTemplate,
  designs: TemplateDesignSource[],
  opts: { displace: 'auto' | 'off'; background?: boolean },
): Promise<RawImage> {
  const fills = await Promise.all(
    designs.map(async (d) => {
      const box = designBox(prepared, d.smartObjectId, d.placement);
      const placed = await placeDesign(d.source, box.width, box.height);
      return { smartObjectId: d.smartObjectId, design: unpad(placed), placement: d.placement };
    }),
  );
  // the engine's CPU work takes a slot of the compositing gate, as a garment's composite does (a bulk's item in the
  // background lane)
  return compositeGate.run(async () => renderTemplate(prepared, fills, { displace: opts.displace }), {
    background: opts.background === true,
  });
}

const jpeg = (img: sharp.Sharp, quality: number) =>
  img.jpeg({ quality, mozjpeg: false, optimizeCoding: JPEG_OPTIMIZE_CODING, chromaSubsampling: '4:2:0' }).toBuffer();

/**
 * The mockup (JPEG at the template's size, or at most `maxSide` on its long side) and its thumbnail (JPEG, at most
 * 400 px), transparent areas of the template on white as Photoshop shows them.
 */
export async function encodeTemplateMockup(
  img: RawImage,
  opts: { maxSide?: number; thumbnail?: boolean } = {},
): Promise<{ mockup: Buffer; thumbnail: Buffer | null; width: number; height: number }> {
  const raw = { raw: { width: img.width, height: img.height, channels: 4 as const } };
  const flat = () => sharp(img.data, raw).flatten({ background: '#ffffff' });
  let width = img.width;
  let height = img.height;
  let main = flat();
  if (opts.maxSide && Math.max(width, height) > opts.maxSide) {
    const s = opts.maxSide / Math.max(width, height);
    width = Math.max(1, Math.round(width * s));
    height = Math.max(1, Math.round(height * s));
    main = main.resize(width, height, { fit: 'fill' });
  }
  const [mockup, thumbnail] = await Promise.all([
    jpeg(main, JPEG_QUALITY),
    opts.thumbnail === false
      ? null
      : jpeg(flat().resize(THUMB_TARGET, THUMB_TARGET, { fit: 'inside', withoutEnlargement: true }), THUMB_QUALITY),
  ]);
  return { mockup, thumbnail, width, height };
}
