// Corpus (a) of issue 38: our own blanks, cut out along their silhouette and photographed again. Each case is one
// colour of one garment, shrunk to 50-100 %, put in a corner or the centre of a larger frame, on a backdrop from pure
// white through light and mid grey to the garment's own colour (with a seamless paper's falloff and sensor noise,
// except the clipped pure white), with or without a soft drop shadow, saved as JPEG at quality 70-95. Where the garment
// went is known exactly, so the found mask can be compared with the true silhouette and the fitted print with where
// the print lands on our own blank. Used by test/unit/garment-corpus.test.ts and scripts/garment-corpus.ts.
import sharp from 'sharp';
import { garmentMask, type Silhouette, type View } from '../../lib/blanks';
import { colorize } from '../../lib/blanks/render';
import { getTemplate } from '../../lib/blanks/template';
import { parseHex } from '../../lib/blanks/color';
import { zonesFor } from '../../lib/blanks';
import { choosePrintZone, DETECT_SIDE, locateGarment, referenceLandmarks } from '../../lib/compositing';
import { CATALOG } from '../../db/seed/catalog';

export type Corner = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right' | 'centre';
export const CORNERS: Corner[] = ['top-left', 'top-right', 'bottom-left', 'bottom-right', 'centre'];

export interface BackdropSpec {
  name: string;
  /** a colour, or the garment's own */
  rgb: [number, number, number] | 'own';
  /** false: a flat, clipped backdrop (no falloff, no noise) */
  paper: boolean;
}

export const BACKDROPS: BackdropSpec[] = [
  { name: 'pure white', rgb: [255, 255, 255], paper: false },
  { name: 'white paper', rgb: [246, 246, 244], paper: true },
  { name: 'light grey', rgb: [222, 222, 220], paper: true },
  { name: 'mid grey', rgb: [160, 161, 163], paper: true },
  { name: 'own colour', rgb: 'own', paper: true },
];

export interface CorpusCase {
  silhouette: Silhouette;
  view: View;
  colorName: string;
  colorHex: string;
  backdrop: BackdropSpec;
  shadow: boolean;
  /** the blank's side in the photo, relative to the frame's short side (0.5-1) */
  scale: number;
  corner: Corner;
  quality: number;
  /** the frame: landscape or portrait */
  width: number;
  height: number;
  seed: number;
}

/** The backdrops of the bar (IoU >= 0.92 for every colour): pure white through light grey. */
export const LIGHT_BACKDROPS = ['pure white', 'white paper', 'light grey'];

/**
 * The whole corpus: every colour of every catalogue garment (each silhouette and colour once) on every backdrop,
 * without and with a drop shadow, 540 cases; sizes, corners, qualities and frames cycle with the case's number, which
 * is also its seed (scripts/garment-corpus.ts measures them all, test/unit/garment-corpus.test.ts the light ones).
 */
export function corpusCases(): CorpusCase[] {
  const pairs = new Map<string, { silhouette: CorpusCase['silhouette']; name: string; hex: string }>();
  for (const g of CATALOG)
    for (const c of g.colors) pairs.set(`${g.silhouette}:${c.name}`, { silhouette: g.silhouette, ...c });
  const out: CorpusCase[] = [];
  let k = 0;
  for (const p of pairs.values())
    for (const backdrop of BACKDROPS)
      for (const shadow of [false, true]) {
        const landscape = k % 2 === 0;
        out.push({
          silhouette: p.silhouette,
          view: 'front',
          colorName: p.name,
          colorHex: p.hex,
          backdrop,
          shadow,
          scale: [0.5, 0.625, 0.75, 0.875, 1][k % 5]!,
          corner: CORNERS[Math.floor(k / 5) % CORNERS.length]!,
          quality: [70, 75, 80, 85, 90, 95][k % 6]!,
          width: landscape ? 1000 : 800,
          height: landscape ? 800 : 1000,
          seed: k++,
        });
      }
  return out;
}

/** Side of the blank the corpus cuts its garments from (pixels). */
export const BLANK_PX = 1000;

export interface CorpusPhoto {
  jpeg: Buffer;
  width: number;
  height: number;
  /** where the blank's top-left corner went, and its size in the photo: photo px = blank px * side / BLANK_PX + offset */
  left: number;
  top: number;
  side: number;
}

/** The garment of a case, cut out of our own blank and put in the case's frame, as a JPEG. */
export async function corpusPhoto(c: CorpusCase): Promise<CorpusPhoto> {
  const { width: W, height: H } = c;
  const side = Math.round(Math.min(W, H) * c.scale);
  const left = c.corner.endsWith('left') ? 0 : c.corner === 'centre' ? Math.round((W - side) / 2) : W - side;
  const top = c.corner.startsWith('top') ? 0 : c.corner === 'centre' ? Math.round((H - side) / 2) : H - side;

  const t = await getTemplate(c.silhouette, c.view, BLANK_PX);
  const raw = colorize(t, c.colorHex);
  const [rgb, mask] = await Promise.all([
    sharp(raw, { raw: { width: BLANK_PX, height: BLANK_PX, channels: 3 } })
      .resize(side, side)
      .raw()
      .toBuffer(),
    garmentMask(c.silhouette, c.view, BLANK_PX).then((m) =>
      sharp(m.data, { raw: { width: BLANK_PX, height: BLANK_PX, channels: 1 } })
        .resize(side, side)
        .extractChannel(0)
        .raw()
        .toBuffer(),
    ),
  ]);

  // the backdrop: its colour, with a seamless paper's falloff (a vignette and a vertical gradient) and noise
  const base = c.backdrop.rgb === 'own' ? parseHex(c.colorHex) : c.backdrop.rgb;
  const out = new Float32Array(W * H * 3);
  let s = (c.seed * 2654435761) >>> 0 || 1;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const gauss = () => {
    const u = rnd() || 1e-9;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
  };
  // the vignette's centre is off the frame's centre, as a light set to one side
  const vx = W * (0.35 + 0.3 * rnd());
  const vy = H * (0.3 + 0.3 * rnd());
  const r2 = (W * W + H * H) / 4;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const f = c.backdrop.paper ? (1 - (0.07 * ((x - vx) ** 2 + (y - vy) ** 2)) / r2) * (1 - (0.03 * y) / H) : 1;
      const n = c.backdrop.paper ? gauss() * 1.2 : 0;
      const i = (y * W + x) * 3;
      out[i] = base[0] * f + n;
      out[i + 1] = base[1] * f + n;
      out[i + 2] = base[2] * f + n;
    }

  // a soft drop shadow: the silhouette blurred, a little down and to the right, darkening the backdrop
  if (c.shadow) {
    const pad = Math.round(side * 0.08);
    const blurred = await sharp(mask, { raw: { width: side, height: side, channels: 1 } })
      .extend({ top: pad, bottom: pad, left: pad, right: pad, background: { r: 0, g: 0, b: 0 } })
      .blur(Math.max(1, side * 0.02))
      .extractChannel(0)
      .raw()
      .toBuffer();
    const dx = Math.round(side * 0.012) - pad;
    const dy = Math.round(side * 0.022) - pad;
    const bs = side + 2 * pad;
    for (let y = 0; y < bs; y++) {
      const py = top + y + dy;
      if (py < 0 || py >= H) continue;
      for (let x = 0; x < bs; x++) {
        const px = left + x + dx;
        if (px < 0 || px >= W) continue;
        const k = 1 - (0.38 * blurred[y * bs + x]!) / 255;
        const i = (py * W + px) * 3;
        out[i] = out[i]! * k;
        out[i + 1] = out[i + 1]! * k;
        out[i + 2] = out[i + 2]! * k;
      }
    }
  }

  // the garment over it, along its silhouette (anti-aliased)
  for (let y = 0; y < side; y++) {
    const py = top + y;
    if (py < 0 || py >= H) continue;
    for (let x = 0; x < side; x++) {
      const px = left + x;
      const a = mask[y * side + x]! / 255;
      if (a === 0 || px < 0 || px >= W) continue;
      const i = (py * W + px) * 3;
      const j = (y * side + x) * 3;
      out[i] = out[i]! * (1 - a) + rgb[j]! * a;
      out[i + 1] = out[i + 1]! * (1 - a) + rgb[j + 1]! * a;
      out[i + 2] = out[i + 2]! * (1 - a) + rgb[j + 2]! * a;
    }
  }
  const bytes = Buffer.alloc(W * H * 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.max(0, Math.min(255, Math.round(out[i]!)));
  const jpeg = await sharp(bytes, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: c.quality })
    .toBuffer();
  return { jpeg, width: W, height: H, left, top, side };
}

/** The true garment mask of a case's photo at w x h (the detector's grid): 1 = garment. */
export async function truthMask(c: CorpusCase, photo: CorpusPhoto, w: number, h: number): Promise<Uint8Array> {
  const m = await garmentMask(c.silhouette, c.view, BLANK_PX);
  const placed = await sharp(m.data, { raw: { width: BLANK_PX, height: BLANK_PX, channels: 1 } })
    .resize(photo.side, photo.side)
    .extend({
      left: photo.left,
      top: photo.top,
      right: photo.width - photo.left - photo.side,
      bottom: photo.height - photo.top - photo.side,
      background: { r: 0, g: 0, b: 0 },
    })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const small = await sharp(placed, { raw: { width: photo.width, height: photo.height, channels: 1 } })
    .resize(w, h, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const out = new Uint8Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = small[i]! >= 128 ? 1 : 0;
  return out;
}

export function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let uni = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) uni++;
  }
  return uni ? inter / uni : 0;
}

export interface CaseResult {
  found: boolean;
  source: string;
  iou: number;
  /** distance of the print's centre from where it lands on our own blank, in garment widths (Infinity: not placed) */
  centreError: number;
  basis: string;
  /** the detector's time on this photo (decode of the small copy included), ms */
  ms: number;
}

/** A photo decoded as the service decodes one for detection (upright, at most DETECT_SIDE, sRGB RGBA) and the
 * detector run on it; `ms` the time of both. */
export async function detectOn(bytes: Buffer) {
  const t0 = performance.now();
  const { data, info } = await sharp(bytes)
    .autoOrient()
    .resize({ width: DETECT_SIDE, height: DETECT_SIDE, fit: 'inside', withoutEnlargement: true })
    .toColorspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { detection, masks } = locateGarment({ data, width: info.width, height: info.height, channels: 4 });
  return { info, detection, masks, ms: performance.now() - t0 };
}

/** Runs the detector and the zone fit on one case's photo and measures them against the truth. */
export async function evaluateCase(c: CorpusCase, photo?: CorpusPhoto): Promise<CaseResult> {
  const p = photo ?? (await corpusPhoto(c));
  const { info, detection, masks, ms } = await detectOn(p.jpeg);
  const truth = await truthMask(c, p, info.width, info.height);
  const score = masks[0] ? iou(masks[0], truth) : 0;
  const zone = zonesFor(c.silhouette)[c.view === 'back' ? 'back' : 'front']!.rect;
  const chosen = await choosePrintZone({
    blank: { width: p.width, height: p.height, garment: detection },
    zone,
    silhouette: c.silhouette,
    view: c.view,
  });
  const ref = await referenceLandmarks(c.silhouette, c.view);
  const garmentWidth = ref.box.width * p.side;
  const want = {
    x: (zone.x + zone.width / 2) * p.side + p.left,
    y: (zone.y + 0.35 * zone.height) * p.side + p.top,
  };
  const got = {
    x: (chosen.zone.x + chosen.zone.width / 2) * p.width,
    y: (chosen.zone.y + 0.35 * chosen.zone.height) * p.height,
  };
  return {
    found: detection.found,
    source: detection.found ? detection.source : detection.reason,
    iou: score,
    centreError: chosen.basis === 'garment' ? Math.hypot(got.x - want.x, got.y - want.y) / garmentWidth : Infinity,
    basis: chosen.basis,
    ms,
  };
}
