// Compositing a layer tree over a frame (a rectangle of the document), bottom to top: hidden layers skipped,
// clipping groups (the clipped layers blended onto the base's own pixels, composited as the base), groups
// pass-through or isolated, masks, opacity and fill opacity, every blend mode (blend.ts).
import { blendInto, FILL_INSIDE_MODES } from './blend';
import type { Block, Bytes, MaskBlock, TNode } from './model';
import { blockOnFrame } from './paint';

export interface Frame {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Paints smart object `so` over the frame: frame-sized RGBA (straight alpha), or null when it draws nothing. */
export type SmartPainter = (
  so: number,
  node: Extract<TNode, { kind: 'smart' }>,
  frame: Frame,
) => Uint8ClampedArray | null;

interface Source {
  data: Bytes;
  x: number;
  y: number;
  w: number;
  h: number;
  mask: Bytes | null;
}

/** The mask's coverage over the rectangle (x, y, w, h), one byte per pixel. */
export function maskOver(m: MaskBlock, x: number, y: number, w: number, h: number): Bytes {
  if (m.x === x && m.y === y && m.w === w && m.h === h) return m.data;
  const out = new Uint8Array(w * h).fill(m.def);
  const xa = Math.max(x, m.x);
  const xb = Math.min(x + w, m.x + m.w);
  const ya = Math.max(y, m.y);
  const yb = Math.min(y + h, m.y + m.h);
  for (let yy = ya; yy < yb; yy++) {
    const s = (yy - m.y) * m.w + (xa - m.x);
    if (xb > xa) out.set(m.data.subarray(s, s + (xb - xa)), (yy - y) * w + (xa - x));
  }
  return out;
}

function sourceOf(node: TNode, f: Frame, paint: SmartPainter): Source | null {
  let data: Bytes | null;
  let r: Block | Frame;
  if (node.kind === 'pixels') {
    if (!node.img) return null;
    data = node.img.data;
    r = node.img;
  } else if (node.kind === 'smart') {
    data = paint(node.so, node, f);
    r = f;
  } else {
    const buf = new Uint8ClampedArray(f.w * f.h * 4);
    compositeList(node.children, f, buf, paint);
    data = buf;
    r = f;
  }
  if (!data) return null;
  return { data, x: r.x, y: r.y, w: r.w, h: r.h, mask: node.mask ? maskOver(node.mask, r.x, r.y, r.w, r.h) : null };
}

function blendSource(dst: Uint8ClampedArray, f: Frame, s: Source, node: TNode): void {
  // a group's fill opacity fades it as its opacity does (Photoshop's composite of a pass-through group with fill
  // 47 %: passthrough_fill_blendmode.psd); a layer's goes through blendInto (inside the blend for some modes)
  const group = node.kind === 'group';
  blendInto({
    dst,
    dw: f.w,
    src: s.data,
    sw: s.w,
    sh: s.h,
    sx: s.x - f.x,
    sy: s.y - f.y,
    mode: node.mode,
    opacity: group ? node.opacity * node.fill : node.opacity,
    fill: group ? 1 : node.fill,
    mask: s.mask,
  });
}

/**
 * A pass-through group's own colour and coverage over the frame, as a layer (when it is a clipping base): its
 * children blended into the backdrop `dst` (pass-through), then the backdrop taken out again (the PDF/W3C
 * non-isolated group's formula C = Cn + (Cn - C0) x (a0 / ag - a0), ag the children's union coverage), so that
 * composited back over the backdrop in normal mode it gives the blended result.
 */
function passThroughLayer(children: TNode[], f: Frame, dst: Uint8ClampedArray, paint: SmartPainter): Uint8ClampedArray {
  const out = new Uint8ClampedArray(f.w * f.h * 4);
  compositeList(children, f, out, paint); // isolated: the children's coverage (blend modes do not change it)
  const over = dst.slice();
  compositeList(children, f, over, paint);
  for (let o = 0, n = out.length; o < n; o += 4) {
    const ag = out[o + 3]! / 255;
    const a0 = dst[o + 3]! / 255;
    if (ag <= 0 || a0 <= 0) continue; // nothing of the group, or no backdrop: the isolated colour is the colour
    const k = a0 / ag - a0;
    for (let c = 0; c < 3; c++) out[o + c] = over[o + c]! + (over[o + c]! - dst[o + c]!) * k;
  }
  return out;
}

/** The clipping base's own colour and coverage over the frame (no mask, opacity or fill), or null. */
function baseOnFrame(node: TNode, f: Frame, dst: Uint8ClampedArray, paint: SmartPainter): Uint8ClampedArray | null {
  if (node.kind === 'group') {
    if (node.passThrough) return passThroughLayer(node.children, f, dst, paint);
    const out = new Uint8ClampedArray(f.w * f.h * 4);
    compositeList(node.children, f, out, paint);
    return out;
  }
  if (node.kind === 'pixels') return node.img ? blockOnFrame(node.img, f) : null;
  const data = paint(node.so, node, f);
  return data && data.slice(); // the painter's pixels may be the prepared template's own: drawn on a copy
}

/**
 * A clipping group, as Photoshop blends it by default ("blend clipped layers as group"): the clipped layers
 * blended onto the base's colour with the base's transparency kept (as painting with transparent pixels locked;
 * clipping-mask.psd), the base's fill fading its own pixels only (advanced-blending.psd), and the result composited
 * as the base would be (its mode, mask and opacity). A pass-through base is blended into the backdrop first and the
 * backdrop taken out (passThroughLayer), so its clipped layers see what it shows there (clipping-mask4.psd).
 */
function clippingGroup(node: TNode, clipped: TNode[], f: Frame, dst: Uint8ClampedArray, paint: SmartPainter) {
  const base = baseOnFrame(node, f, dst, paint);
  if (!base) return;
  // the base's fill fades its own pixels, not its clipped layers (a base at fill 0 still shows them in its shape);
  // modes that take the fill inside the blend keep it there
  const inside = node.kind !== 'group' && FILL_INSIDE_MODES.has(node.mode);
  const fill = inside ? 1 : node.fill;
  const inner = Math.round(fill * 255);
  const n = f.w * f.h;
  const shape = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    shape[p] = base[p * 4 + 3]!;
    base[p * 4 + 3] = inner;
  }
  for (const c of clipped) {
    const cs = sourceOf(c, f, paint);
    if (cs) blendSource(base, f, cs, c);
  }
  for (let p = 0; p < n; p++) base[p * 4 + 3] = (shape[p]! * base[p * 4 + 3]!) / 255;
  const mask = node.mask ? maskOver(node.mask, f.x, f.y, f.w, f.h) : null;
  blendInto({
    dst,
    dw: f.w,
    src: base,
    sw: f.w,
    sh: f.h,
    sx: 0,
    sy: 0,
    mode: node.mode,
    opacity: node.opacity,
    fill: inside ? node.fill : 1,
    mask,
  });
}

/** Composite `nodes` (bottom first) onto `dst` (RGBA, frame-sized). */
export function compositeList(nodes: TNode[], f: Frame, dst: Uint8ClampedArray, paint: SmartPainter): void {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    let j = i + 1;
    while (j < nodes.length && nodes[j]!.clip) j++;
    const clipped = nodes.slice(i + 1, j).filter((n) => !n.hidden);
    const skipTo = node.clip ? i : j - 1; // a clipped layer with no base below is drawn as a plain layer
    if (node.hidden) {
      i = skipTo;
      continue;
    }
    if (clipped.length && !node.clip) clippingGroup(node, clipped, f, dst, paint);
    else if (node.kind === 'group' && node.passThrough) passThrough(node, f, dst, paint);
    else {
      const s = sourceOf(node, f, paint);
      if (s) blendSource(dst, f, s, node);
    }
    i = skipTo;
  }
}

/** A pass-through group: its children blended into the backdrop, the result faded back towards the backdrop by
 * the group's opacity x fill x mask (alpha-weighted). */
function passThrough(node: Extract<TNode, { kind: 'group' }>, f: Frame, dst: Uint8ClampedArray, paint: SmartPainter) {
  const k = node.opacity * node.fill;
  if (k >= 1 && !node.mask) {
    compositeList(node.children, f, dst, paint);
    return;
  }
  const before = dst.slice();
  compositeList(node.children, f, dst, paint);
  const m = node.mask ? maskOver(node.mask, f.x, f.y, f.w, f.h) : null;
  for (let p = 0, n = f.w * f.h; p < n; p++) {
    const t = k * (m ? m[p]! / 255 : 1);
    if (t >= 1) continue;
    const o = p * 4;
    // fade between the backdrop and the group's result, alpha-weighted
    const a0 = before[o + 3]!;
    const a1 = dst[o + 3]!;
    const a = a0 + (a1 - a0) * t;
    if (a <= 0) {
      dst[o] = dst[o + 1] = dst[o + 2] = dst[o + 3] = 0;
      continue;
    }
    for (let c = 0; c < 3; c++) dst[o + c] = (before[o + c]! * a0 * (1 - t) + dst[o + c]! * a1 * t) / a;
    dst[o + 3] = a;
  }
}
