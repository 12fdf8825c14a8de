// A render on a template (issue 32, docs/templates.md), one way for the worker's generations and the API's preview:
// each design read through the compositing engine's design cache (prepared levels of uploads, decoded once) at the
// size its smart object needs (designSize: no more pixels than the smart object shows, so the engine never reduces a
// large design itself), then the prepared template rendered with them as RGB (its baseline copied, only the smart
// objects' frames recomputed), and encoded like a garment mockup: the JPEG from the RGB, the thumbnail from the
// baseline's own with only the changed frames reduced again.
import sharp from 'sharp';
import {
  derivedCache,
  JPEG_QUALITY,
  placeDesign,
  THUMB_QUALITY,
  type DesignSource,
  type PlacedDesign,
} from '../compositing';
import { encodeJpeg, jpegOf } from '../compositing/composite';
import { compositeGate, outputPool } from '../compositing/config';
import { encodeRows, prepareRows, type JpegRows } from '../compositing/jpeg-rows';
import { reduceInto, THUMB_TARGET } from '../compositing/prepared';
// the engine's render modules, not its index: the index also exports the PSD parser, which loads ag-psd (~11 MiB
// per process), needed only by an import (activities/templates.ts loads it then)
import { designTarget, renderPlan } from '../templates/fast';
import { renderTemplateOrderedRgb } from '../templates/ordered';
import type { DesignLevels, LevelsCache } from '../templates/paint';
import type { PreparedTemplate } from '../templates/prepare';
import { designSize } from '../templates/render';
import type { RawImage, TemplateFill, TemplatePlacement } from '../templates/types';

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

/** The placed design without its padding, resized (sharp, Lanczos-3) to `target` when that differs from its size;
 * kept in the design cache (counted in its bound) under the placed design's key and the size, so a design rendered
 * again on the same smart object is not unpadded or resized again. */
async function sized(p: PlacedDesign, target: { width: number; height: number }): Promise<RawImage> {
  const make = async (): Promise<RawImage> => {
    if (target.width === p.width && target.height === p.height) return unpad(p);
    const data = await sharp(p.data, { raw: { width: p.width + 2, height: p.height + 2, channels: 4 } })
      .extract({ left: 1, top: 1, width: p.width, height: p.height })
      .resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' })
      .raw()
      .toBuffer();
    return { width: target.width, height: target.height, data };
  };
  const key = p.key && `${p.key}|S${target.width}x${target.height}`;
  if (!key) return make();
  const hit = derivedCache.get<RawImage>(key);
  if (hit) return hit;
  const img = await make();
  derivedCache.set(key, img, img.data.length);
  return img;
}

/** The name of a placed design's pixels after sized(), for the levels cache; null when it was not cached. */
const sizedKey = (p: PlacedDesign, d: RawImage) => (p.key ? `${p.key}|S${d.width}x${d.height}` : undefined);

/** The designs' levels (mip pyramids) between renders, in the design cache and counted in its bound: a design
 * rendered again at the same size on a template (or on another whose smart object shows it as much) is not
 * premultiplied and reduced again. */
const levelsCache: LevelsCache = {
  get: (key) => derivedCache.get<DesignLevels>(key),
  set: (key, levels, bytes) => derivedCache.set(key, levels, bytes),
};

/**
 * The placed designs of a render: each through the design cache at the size its smart object needs, then resized
 * per axis to what the render samples (designTarget: where perspective or displacement shows it smaller along one
 * axis), so the engine never reduces a design in JS.
 */
async function fillsOf(
  prepared: PreparedTemplate,
  designs: TemplateDesignSource[],
  displace: 'auto' | 'off',
): Promise<TemplateFill[]> {
  return Promise.all(
    designs.map(async (d) => {
      const box = designBox(prepared, d.smartObjectId, d.placement);
      const placed = await placeDesign(d.source, box.width, box.height);
      const target = designTarget(prepared, d.smartObjectId, placed, d.placement, displace);
      const design = await sized(placed, target);
      return {
        smartObjectId: d.smartObjectId,
        design,
        placement: d.placement,
        placedAs: { width: placed.width, height: placed.height },
        designKey: sizedKey(placed, design),
      };
    }),
  );
}

/** The mockup's JPEG of raw RGB: the one encoder of the full image, the baseline and the bands spliced into it. */
const mockupJpeg = (rgb: Buffer, width: number, height: number) => encodeJpeg(rgb, width, height, JPEG_QUALITY);

interface Thumb {
  data: Buffer;
  width: number;
  height: number;
  factor: number;
}

/** The baseline's thumbnail (at most THUMB_TARGET on its long side, an integer box reduction), made once per
 * prepared template: a render's thumbnail is a copy with only the frames it changed reduced again. */
const thumbs = new WeakMap<PreparedTemplate, Thumb>();
function baselineThumb(prepared: PreparedTemplate): Thumb {
  let t = thumbs.get(prepared);
  if (t) return t;
  const { width, height } = prepared;
  const factor = Math.max(1, Math.ceil(Math.max(width, height) / THUMB_TARGET));
  const tw = Math.max(1, Math.floor(width / factor));
  const th = Math.max(1, Math.floor(height / factor));
  const data = Buffer.allocUnsafe(tw * th * 3);
  const rgb = renderPlan(prepared).rgb;
  if (factor === 1) rgb.copy(data);
  else reduceInto(rgb, width, data, tw, factor, 0, 0, tw, th);
  t = { data, width: tw, height: th, factor };
  thumbs.set(prepared, t);
  return t;
}

/** The baseline's JPEG decoded once per prepared template (lib/compositing/jpeg-rows.ts): a render encodes only the
 * MCU rows its frames touch and splices them into it; null when it cannot be spliced (then every render encodes the
 * whole image). */
const jpegRows = new WeakMap<PreparedTemplate, Promise<JpegRows | null>>();
function baselineRows(prepared: PreparedTemplate): Promise<JpegRows | null> {
  let r = jpegRows.get(prepared);
  if (r) return r;
  const { width, height } = prepared;
  r = mockupJpeg(renderPlan(prepared).rgb, width, height).then(
    (j) => prepareRows(j, width, height),
    () => null,
  );
  jpegRows.set(prepared, r);
  return r;
}

/**
 * What the render path keeps with a prepared template besides its stored buffers (the engine's render plan, the
 * baseline's thumbnail and, with `jpegRows`, its JPEG's rows: only for renders at the template's size, not the API's
 * previews), made now rather than by the first render; its bytes, for the cache's bound.
 */
export async function warmTemplate(prepared: PreparedTemplate, opts: { jpegRows?: boolean } = {}): Promise<number> {
  const bytes = renderPlan(prepared).bytes + baselineThumb(prepared).data.length;
  return bytes + ((opts.jpegRows && (await baselineRows(prepared))?.bytes) || 0);
}

/**
 * A mockup on a template: each design placed at the size its smart object needs, the template rendered as RGB over
 * white (lib/templates/fast.ts: a copy of its baseline with only the smart objects' frames recomputed), the JPEG at
 * the template's size (or at most `maxSide` on its long side) and its thumbnail (at most 400 px: the baseline's
 * thumbnail with the changed frames reduced again), both encoded side by side. All of it in one slot of the
 * compositing gate, as a garment's composite (a bulk's item in the background lane).
 */
export async function templateMockup(
  prepared: PreparedTemplate,
  designs: TemplateDesignSource[],
  opts: { displace: 'auto' | 'off'; background?: boolean; maxSide?: number; thumbnail?: boolean },
): Promise<{ mockup: Buffer; thumbnail: Buffer | null; width: number; height: number }> {
  return compositeGate.run(
    async () => {
      const fills = await fillsOf(prepared, designs, opts.displace);
      const W = prepared.width;
      const H = prepared.height;
      const out = outputPool.take(W * H * 3);
      try {
        const img = renderTemplateOrderedRgb(prepared, fills, { displace: opts.displace }, out, levelsCache);
        let thumb: Thumb | null = null;
        if (opts.thumbnail !== false) {
          const base = baselineThumb(prepared);
          thumb = { ...base, data: Buffer.from(base.data) };
          const f = base.factor;
          for (const r of img.frames) {
            if (f === 1) {
              for (let y = r.y; y < r.y + r.h; y++)
                out.copy(thumb.data, (y * W + r.x) * 3, (y * W + r.x) * 3, (y * W + r.x + r.w) * 3);
              continue;
            }
            reduceInto(
              out,
              W,
              thumb.data,
              base.width,
              f,
              Math.floor(r.x / f),
              Math.floor(r.y / f),
              Math.min(base.width, Math.ceil((r.x + r.w) / f)),
              Math.min(base.height, Math.ceil((r.y + r.h) / f)),
            );
          }
        }
        let width = W;
        let height = H;
        let mockup: Promise<Buffer>;
        if (opts.maxSide && Math.max(W, H) > opts.maxSide) {
          const s = opts.maxSide / Math.max(W, H);
          width = Math.max(1, Math.round(W * s));
          height = Math.max(1, Math.round(H * s));
          mockup = jpegOf(
            sharp(out, { raw: { width: W, height: H, channels: 3 } }).resize(width, height, { fit: 'fill' }),
            JPEG_QUALITY,
          );
        } else {
          // only the MCU rows the frames touch encoded, the rest the baseline's JPEG: the same bytes as the whole
          const rows = await baselineRows(prepared);
          mockup = (async () =>
            (rows && (await encodeRows(rows, out, img.frames, mockupJpeg))) ?? mockupJpeg(out, W, H))();
        }
        const [main, thumbnail] = await Promise.all([
          mockup,
          thumb ? encodeJpeg(thumb.data, thumb.width, thumb.height, THUMB_QUALITY) : null,
        ]);
        return { mockup: main, thumbnail, width, height };
      } finally {
        outputPool.give(out);
      }
    },
    { background: opts.background === true },
  );
}
