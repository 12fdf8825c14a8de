// Corpus (b) of issue 38: real photos of plain tees (hangers, beds, floors) from the CC0 clothing dataset
// (alexeygrigorev/clothing-dataset), each with a garment outline drawn by hand (test/fixtures/garment-photos/
// masks.json: a polygon in percent of the photo, rasterized here). The photos themselves are not in this repository:
// they are read from GARMENT_PHOTOS_DIR (<image>.jpg, as in the dataset's images/ folder) or from a local clone of
// the dataset (GARMENT_PHOTOS_REPO, a git directory; default the workspace's mirror), and checked against the blob
// id pinned in masks.json. Used by test/unit/garment-photos.test.ts and scripts/garment-photos.ts.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { zonesFor } from '../../lib/blanks';
import { choosePrintZone, chooseRegion, landmarks, referenceRegion } from '../../lib/compositing';
import { detectOn, iou } from './garment-corpus';

export interface PhotoEntry {
  image: string;
  /** path in the dataset's repository */
  source: string;
  /** git blob id of the photo at the pinned commit */
  blob: string;
  width: number;
  height: number;
  /** the garment's outline drawn by hand: [x, y] in percent of the photo's width and height */
  outline: [number, number][];
  /** 2: added in the second pass as a held-out set (not tuned on); absent: the first pass */
  round?: number;
}

export interface PhotoManifest {
  dataset: string;
  commit: string;
  licence: string;
  photos: PhotoEntry[];
}

export const FIXTURES = path.join(__dirname, '..', 'fixtures', 'garment-photos');
const DEFAULT_REPO = '/work/.mirror/alexeygrigorev+clothing-dataset/repo';

export function manifest(): PhotoManifest {
  return JSON.parse(readFileSync(path.join(FIXTURES, 'masks.json'), 'utf8')) as PhotoManifest;
}

function blobId(bytes: Buffer): string {
  return createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest('hex');
}

/** The photo's bytes, checked against its pinned blob id; null when no copy of the dataset is at hand. */
export function photoBytes(p: PhotoEntry): Buffer | null {
  let bytes: Buffer;
  const dir = process.env.GARMENT_PHOTOS_DIR;
  if (dir && existsSync(path.join(dir, `${p.image}.jpg`))) bytes = readFileSync(path.join(dir, `${p.image}.jpg`));
  else {
    const repo = process.env.GARMENT_PHOTOS_REPO ?? DEFAULT_REPO;
    if (!existsSync(repo)) return null;
    bytes = execFileSync('git', ['--git-dir', repo, 'cat-file', 'blob', p.blob], { maxBuffer: 64 << 20 });
  }
  if (blobId(bytes) !== p.blob) throw new Error(`${p.source}: not the pinned photo (blob ${p.blob})`);
  return bytes;
}

/** The outline rasterized on a w x h grid (pixel centres, even-odd rule): 1 = garment. */
export function rasterize(outline: [number, number][], w: number, h: number): Uint8Array {
  const pts = outline.map(([x, y]) => [(x / 100) * w, (y / 100) * h] as const);
  const out = new Uint8Array(w * h);
  const xs: number[] = [];
  for (let y = 0; y < h; y++) {
    const cy = y + 0.5;
    xs.length = 0;
    for (let k = 0; k < pts.length; k++) {
      const [x1, y1] = pts[k]!;
      const [x2, y2] = pts[(k + 1) % pts.length]!;
      if (y1 <= cy === y2 <= cy) continue;
      xs.push(x1 + ((cy - y1) / (y2 - y1)) * (x2 - x1));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2)
      for (let x = Math.max(0, Math.ceil(xs[k]! - 0.5)); x < Math.min(w, Math.ceil(xs[k + 1]! - 0.5)); x++)
        out[y * w + x] = 1;
  }
  return out;
}

/**
 * The chest of a garment mask, in pixels of its grid: within 20 % of the mask's width either side of its axis, and
 * from 5 % to 45 % of its height below its neckline (landmarks of garment-regions.ts, measured on the hand-drawn
 * mask).
 */
export function chestBox(mask: Uint8Array, w: number, h: number): { x0: number; x1: number; y0: number; y1: number } {
  const m = landmarks(mask, w, h);
  const bw = m.box.width * w;
  const bh = m.box.height * h;
  const ax = m.neckline.x * w;
  const ny = m.neckline.y * h;
  return { x0: ax - 0.2 * bw, x1: ax + 0.2 * bw, y0: ny + 0.05 * bh, y1: ny + 0.45 * bh };
}

export interface PhotoResult {
  found: boolean;
  /** outline, backdrop or alpha, or why not found */
  source: string;
  /** IoU of the region the print went on with the hand-drawn mask (0 when none) */
  iou: number;
  /** the print centre (placement 50 %, 35 % of the zone) in the detection grid, null when not on a garment */
  centre: { x: number; y: number } | null;
  onChest: boolean;
  basis: string;
  ms: number;
  /** the grid, the hand mask, the mask of the region printed on (for pictures) */
  w: number;
  h: number;
  truth: Uint8Array;
  found_mask: Uint8Array | null;
}

/** Runs the detector and the zone fit (tee, front) on one photo and measures them against the hand-drawn mask. */
export async function evaluatePhoto(p: PhotoEntry, bytes: Buffer): Promise<PhotoResult> {
  const { info, detection, masks, ms } = await detectOn(bytes);
  const { width: w, height: h } = info;
  const truth = rasterize(p.outline, w, h);
  const zone = zonesFor('tee').front!.rect;
  const chosen = await choosePrintZone({
    blank: { width: w, height: h, garment: detection },
    zone,
    silhouette: 'tee',
    view: 'front',
  });
  let mask: Uint8Array | null = null;
  if (detection.found) {
    const { region } = chooseRegion(await referenceRegion('tee', 'front'), detection.regions, w, h);
    const k = region ? detection.regions.indexOf(region) : -1;
    mask = k >= 0 ? masks[k]! : null;
  }
  const centre =
    chosen.basis === 'garment'
      ? { x: (chosen.zone.x + chosen.zone.width / 2) * w, y: (chosen.zone.y + 0.35 * chosen.zone.height) * h }
      : null;
  const chest = chestBox(truth, w, h);
  const onChest =
    !!centre &&
    centre.x >= chest.x0 &&
    centre.x <= chest.x1 &&
    centre.y >= chest.y0 &&
    centre.y <= chest.y1 &&
    truth[Math.floor(centre.y) * w + Math.floor(centre.x)] === 1;
  return {
    found: detection.found,
    source: detection.found ? detection.source : detection.reason,
    iou: mask ? iou(mask, truth) : 0,
    centre,
    onChest,
    basis: chosen.basis,
    ms,
    w,
    h,
    truth,
    found_mask: mask,
  };
}
