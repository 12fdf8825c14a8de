// Preparing a parsed template once for many renders: the whole document drawn with each smart object's own content
// (the baseline every render starts from), and per smart object the frame it can change, the layers below it
// flattened over that frame, the layers above it kept (cropped to the frame, with modes, masks and clips), its
// content map, and the displacement derived from what lies under it.
import { compositeList, maskOver, type Frame, type SmartPainter } from './composite';
import { autoDisplacement, displacedMap, mapDisplacement, mapReach } from './displace';
import type { Geometry } from './geometry';
import type { Block, DisplaceFilter, MaskBlock, TNode } from './model';
import { blockOnFrame, frameOf, paintOwn } from './paint';
import type { ParsedTemplate } from './parse';
import { contentMap } from './sample';
import type { SmartObjectInfo, UnsupportedFeature } from './types';

/** Pixels around a smart object's content that a render recomputes (antialiasing and displacement reach). */
export const FRAME_MARGIN = 3;

export interface PreparedSmart {
  info: SmartObjectInfo;
  geometry: Geometry;
  displace: Omit<DisplaceFilter, 'map'> | null;
  /** null when the smart object lies outside the document */
  frame: Frame | null;
  /** frame-sized RGBA: everything below the smart object's top-level layer (or its clipping base), flattened */
  below: Uint8ClampedArray;
  /** the smart object's top-level layer (its group, when nested; the base of its clipping group, when clipped) and
   * every layer above, cropped to the frame */
  above: TNode[];
  /** content coordinates per frame pixel, and the same displaced ('auto') */
  uv: Float32Array;
  uvDisplaced: Float32Array | null;
}

export interface PreparedTemplate {
  width: number;
  height: number;
  smartObjects: SmartObjectInfo[];
  unsupported: UnsupportedFeature[];
  /** RGBA of the whole document rendered with every smart object's own content */
  baseline: Uint8ClampedArray;
  smart: PreparedSmart[];
}

/** Paints each smart object's own content once over its own frame, then copies from that for any frame. */
function ownPainter(t: ParsedTemplate, stored: boolean): SmartPainter {
  const cache = new Map<number, { frame: Frame; data: Uint8ClampedArray } | null>();
  return (so, node, f) => {
    if (!cache.has(so)) {
      const sd = stored ? { ...t.smart[so]!, useStored: true } : t.smart[so]!;
      const own = frameOf(sd.geometry, t.width, t.height, FRAME_MARGIN);
      const fr = sd.useStored && node.img ? { x: node.img.x, y: node.img.y, w: node.img.w, h: node.img.h } : own;
      const data = fr ? paintOwn(sd, node.img, fr) : null;
      cache.set(so, fr && data ? { frame: fr, data } : null);
    }
    const c = cache.get(so);
    return c ? blockOnFrame({ ...c.frame, data: c.data }, f) : null;
  };
}

function contains(n: TNode, so: number): boolean {
  if (n.kind === 'smart') return n.so === so;
  if (n.kind === 'group') return n.children.some((c) => contains(c, so));
  return false;
}

function cropBlock(b: Block, f: Frame): Block | null {
  const x0 = Math.max(b.x, f.x);
  const y0 = Math.max(b.y, f.y);
  const x1 = Math.min(b.x + b.w, f.x + f.w);
  const y1 = Math.min(b.y + b.h, f.y + f.h);
  if (x1 <= x0 || y1 <= y0) return null;
  const w = x1 - x0;
  const h = y1 - y0;
  if (w === b.w && h === b.h) return b;
  const channels = b.data.length / (b.w * b.h);
  const data = new Uint8Array(w * h * channels);
  for (let y = y0; y < y1; y++) {
    const s = ((y - b.y) * b.w + (x0 - b.x)) * channels;
    data.set(b.data.subarray(s, s + w * channels), (y - y0) * w * channels);
  }
  return { x: x0, y: y0, w, h, data };
}

function alignedMask(m: MaskBlock | null, r: Frame | Block): MaskBlock | null {
  if (!m) return null;
  return { x: r.x, y: r.y, w: r.w, h: r.h, data: Uint8Array.from(maskOver(m, r.x, r.y, r.w, r.h)), def: m.def };
}

/** The layers cropped to the frame; smart objects other than `keep` carry their own content's pixels over the frame
 * (`img`), drawn as they are unless a render fills them too. */
function crop(nodes: TNode[], f: Frame, keep: number, paint: SmartPainter): TNode[] {
  return nodes.map((n): TNode => {
    if (n.hidden)
      return n.kind === 'group' ? { ...n, children: [], mask: null } : { ...n, kind: 'pixels', img: null, mask: null };
    if (n.kind === 'group') return { ...n, mask: alignedMask(n.mask, f), children: crop(n.children, f, keep, paint) };
    if (n.kind === 'smart' && n.so === keep) return { ...n, img: null, mask: alignedMask(n.mask, f) };
    if (n.kind === 'smart') {
      const data = paint(n.so, n, f);
      const img = data ? { ...f, data } : null;
      return { ...n, img, mask: alignedMask(n.mask, f) };
    }
    const img = n.img ? cropBlock(n.img, f) : null;
    return { ...n, img, mask: img ? alignedMask(n.mask, img) : null };
  });
}

export interface PrepareOptions {
  /** 'embedded' (default): smart objects drawn from their embedded content through their transform and warp;
   * 'stored': from the pixels Photoshop stored for them (isolates the compositor when measuring fidelity) */
  smartContent?: 'embedded' | 'stored';
}

export function prepareTemplate(t: ParsedTemplate, opts: PrepareOptions = {}): PreparedTemplate {
  const paint = ownPainter(t, opts.smartContent === 'stored');
  const full: Frame = { x: 0, y: 0, w: t.width, h: t.height };
  const baseline = new Uint8ClampedArray(t.width * t.height * 4);
  compositeList(t.root, full, baseline, paint);
  const smart = t.smart.map((sd, so): PreparedSmart => {
    // a Displace filter's map can move the content up to its scale's reach (at most 64 px here)
    const reach = sd.displace?.map ? Math.min(64, Math.ceil(mapReach(sd.displace))) : sd.displace ? 8 : 4;
    const frame = frameOf(sd.geometry, t.width, t.height, FRAME_MARGIN + reach);
    const common = {
      info: sd.info,
      geometry: sd.geometry,
      displace: sd.displace
        ? { horizontalScale: sd.displace.horizontalScale, verticalScale: sd.displace.verticalScale }
        : null,
    };
    if (!frame)
      return {
        ...common,
        frame: null,
        below: new Uint8ClampedArray(0),
        above: [],
        uv: new Float32Array(0),
        uvDisplaced: null,
      };
    const own = t.root.findIndex((n) => contains(n, so));
    // a layer clipped to a base below composites with it (composite.ts): the base and its clipped layers are kept
    let top = own;
    while (top > 0 && t.root[top]!.clip) top--;
    const below = new Uint8ClampedArray(frame.w * frame.h * 4);
    compositeList(t.root.slice(0, top), frame, below, paint);
    // the surface the design lies on (its clipping base included: a garment's folds) for the derived displacement
    let under = below;
    if (top < own) {
      under = new Uint8ClampedArray(frame.w * frame.h * 4);
      compositeList(t.root.slice(0, own), frame, under, paint);
    }
    const above = crop(t.root.slice(top), frame, so, paint);
    const uv = contentMap(sd.geometry, frame);
    const bounds = sd.displace?.map ? frameOf(sd.geometry, t.width, t.height, 0) : null;
    const offsets =
      sd.displace?.map && bounds
        ? mapDisplacement(sd.displace, frame, bounds)
        : autoDisplacement(under, frame, sd.displace);
    return { ...common, frame, below, above, uv, uvDisplaced: offsets ? displacedMap(uv, frame, offsets) : null };
  });
  return {
    width: t.width,
    height: t.height,
    smartObjects: t.smartObjects,
    unsupported: t.unsupported,
    baseline,
    smart,
  };
}
