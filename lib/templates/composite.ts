// Compositing a layer tree over a frame (a rectangle of the document), bottom to top: hidden layers skipped,
// clipping groups (the base's coverage and opacity limit its clipped layers), groups pass-through or isolated,
// masks, opacity and fill opacity, every blend mode (blend.ts).
import { blendInto } from './blend';
import type { Block, Bytes, MaskBlock, TNode } from './model';

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

function blendSource(dst: Uint8ClampedArray, f: Frame, s: Source, node: TNode, clip: Float32Array | null): void {
  blendInto({
    dst,
    dw: f.w,
    src: s.data,
    sw: s.w,
    sh: s.h,
    sx: s.x - f.x,
    sy: s.y - f.y,
    mode: node.mode,
    opacity: node.opacity,
    fill: node.kind === 'group' ? 1 : node.fill,
    mask: s.mask,
    clip,
  });
}

/** The clipping base's coverage over the frame: its pixels' alpha x mask x opacity. */
function clipAlpha(f: Frame, s: Source, opacity: number): Float32Array {
  const out = new Float32Array(f.w * f.h);
  const x0 = Math.max(s.x, f.x);
  const x1 = Math.min(s.x + s.w, f.x + f.w);
  const y0 = Math.max(s.y, f.y);
  const y1 = Math.min(s.y + s.h, f.y + f.h);
  const k = opacity / 255;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const si = (y - s.y) * s.w + (x - s.x);
      let a = s.data[si * 4 + 3]! * k;
      if (s.mask) a *= s.mask[si]! / 255;
      out[(y - f.y) * f.w + (x - f.x)] = a;
    }
  }
  return out;
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
    if (node.kind === 'group' && node.passThrough && !clipped.length) {
      passThrough(node, f, dst, paint);
      i = skipTo;
      continue;
    }
    const s = sourceOf(node, f, paint);
    if (s) blendSource(dst, f, s, node, null);
    if (clipped.length && s) {
      const ca = clipAlpha(f, s, node.opacity);
      for (const c of clipped) {
        const cs = sourceOf(c, f, paint);
        if (cs) blendSource(dst, f, cs, c, ca);
      }
    }
    i = skipTo;
  }
}

function passThrough(node: Extract<TNode, { kind: 'group' }>, f: Frame, dst: Uint8ClampedArray, paint: SmartPainter) {
  if (node.opacity >= 1 && !node.mask) {
    compositeList(node.children, f, dst, paint);
    return;
  }
  const before = dst.slice();
  compositeList(node.children, f, dst, paint);
  const m = node.mask ? maskOver(node.mask, f.x, f.y, f.w, f.h) : null;
  for (let p = 0, n = f.w * f.h; p < n; p++) {
    const t = node.opacity * (m ? m[p]! / 255 : 1);
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
