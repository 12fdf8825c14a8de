/** SVG markup for the garment layers (all geometry in inches, mapped by a transform). */
import type { Dot, Fold, Geometry, Part, Seam, Stitch } from './geometry';
import { type Pt, leaf, polyD, resample, toD, offsetPoly } from './path';

/** `<g>` transform mapping inches to pixels of an image `size` wide. */
export function inchTransform(g: Geometry, size: number): string {
  const k = size / 2000;
  const s = g.ppi * k;
  return `matrix(${s} 0 0 ${s} ${1000 * k} ${g.originY * k})`;
}

export const pxPerInch = (g: Geometry, size: number): number => (g.ppi * size) / 2000;

export function partsSvg(parts: Part[], g: Geometry, size: number, fill = '#fff'): string {
  // one <path> per shape: mirrored shapes have opposite winding, so a single
  // combined path would punch holes where they overlap
  const paths = parts.flatMap((p) => p.shapes.map((c) => `<path d="${toD(c)}"/>`)).join('');
  return `<g transform="${inchTransform(g, size)}" fill="${fill}">${paths}</g>`;
}

const op = (v: number) => Math.max(0, Math.min(1, v)).toFixed(3);

/**
 * Signed height layer for folds/seams on a 50% gray background: white = ridge,
 * black = valley, opacity = |amp| / scale.
 */
export function foldSvg(folds: Fold[], seams: Seam[], g: Geometry, size: number, scale: number): string {
  let body = `<rect width="100%" height="100%" fill="#808080"/><g transform="${inchTransform(g, size)}">`;
  // Each fold is a stack of nested tapered leaves, which gives a ridge/valley
  // with a peaked, smoothly falling cross-section instead of a flat plateau.
  const LEVELS = 4;
  for (const f of folds) {
    const a = Math.abs(f.amp) / scale / LEVELS;
    for (let k = 0; k < LEVELS; k++) {
      const poly = leaf(f.c, f.w * (1 - k / LEVELS), 28, f.skew ?? 0);
      body += `<path d="${polyD(poly, true)}" fill="${f.amp > 0 ? '#fff' : '#000'}" fill-opacity="${op(a * 1.15)}"/>`;
    }
  }
  for (const s of seams) {
    body += `<path d="${toD(s.c, false)}" fill="none" stroke="#000" stroke-width="${s.w}" stroke-linecap="round" stroke-opacity="${op(s.depth / scale)}"/>`;
  }
  return body + '</g>';
}

/**
 * Crisp full-resolution detail on a 50% gray background (multiplicative
 * brightness modulation): stitching, rib knit lines, buttons, eyelets.
 */
export function detailSvg(g: Geometry, size: number): string {
  let body = `<rect width="100%" height="100%" fill="#808080"/><g transform="${inchTransform(g, size)}">`;
  // rib knit: fine lines between the band edges
  for (const part of g.parts) {
    for (const r of part.ribs ?? []) {
      const la = lengthOf(r.a);
      const lb = lengthOf(r.b);
      const n = Math.max(2, Math.round(Math.max(la, lb) / r.pitch));
      const A = resample(r.a, n);
      const B = resample(r.b, n);
      let dark = '';
      let light = '';
      for (let i = 0; i < n; i++) {
        const a = A[i]!;
        const b = B[i]!;
        dark += `M${a[0].toFixed(3)} ${a[1].toFixed(3)}L${b[0].toFixed(3)} ${b[1].toFixed(3)}`;
        if (i < n - 1) {
          const a2 = A[i + 1]!;
          const b2 = B[i + 1]!;
          light += `M${((a[0] + a2[0]) / 2).toFixed(3)} ${((a[1] + a2[1]) / 2).toFixed(3)}L${((b[0] + b2[0]) / 2).toFixed(3)} ${((b[1] + b2[1]) / 2).toFixed(3)}`;
        }
      }
      body += `<path d="${dark}" stroke="#000" stroke-opacity="0.32" stroke-width="${(r.pitch * 0.38).toFixed(4)}" fill="none"/>`;
      body += `<path d="${light}" stroke="#fff" stroke-opacity="0.22" stroke-width="${(r.pitch * 0.3).toFixed(4)}" fill="none"/>`;
    }
  }
  for (const s of g.seams) body += seamLine(s);
  for (const s of g.stitches) body += stitchSvg(s);
  for (const d of g.dots) body += dotSvg(d);
  return body + '</g>';
}

function lengthOf(c: Parameters<typeof resample>[0]): number {
  const p = resample(c, 64);
  let l = 0;
  for (let i = 1; i < p.length; i++) l += Math.hypot(p[i]![0] - p[i - 1]![0], p[i]![1] - p[i - 1]![1]);
  return l;
}

function seamLine(s: Seam): string {
  return `<path d="${toD(s.c, false)}" fill="none" stroke="#000" stroke-opacity="${op(0.25 + s.depth)}" stroke-width="0.03"/>`;
}

function stitchRow(pts: Pt[], dash: number, k: number): string {
  const d = polyD(pts);
  const gap = dash * 0.6;
  // thread: slightly lighter dash with a dark needle hole at each end
  return (
    `<path d="${d}" fill="none" stroke="#000" stroke-opacity="${op(0.28 * k)}" stroke-width="0.05" stroke-dasharray="${(dash * 0.25).toFixed(3)} ${(dash * 1.35).toFixed(3)}"/>` +
    `<path d="${d}" fill="none" stroke="#fff" stroke-opacity="${op(0.2 * k)}" stroke-width="0.028" stroke-dasharray="${dash.toFixed(3)} ${gap.toFixed(3)}"/>`
  );
}

function stitchSvg(s: Stitch): string {
  const dash = s.dash ?? 0.1;
  const k = s.k ?? 1;
  const pts = resample(s.c, 200);
  let out = stitchRow(pts, dash, k);
  if (s.twin) out += stitchRow(offsetPoly(s.c, s.twin, 200), dash, k);
  return out;
}

function dotSvg(d: Dot): string {
  const { x, y, r } = d;
  if (d.kind === 'button') {
    return (
      `<circle cx="${x}" cy="${y + 0.03}" r="${r + 0.03}" fill="#000" fill-opacity="0.35"/>` +
      `<circle cx="${x}" cy="${y}" r="${r}" fill="#fff" fill-opacity="0.25"/>` +
      `<circle cx="${x}" cy="${y}" r="${r * 0.72}" fill="none" stroke="#000" stroke-opacity="0.25" stroke-width="0.03"/>` +
      `<circle cx="${x - r * 0.28}" cy="${y}" r="${r * 0.13}" fill="#000" fill-opacity="0.6"/>` +
      `<circle cx="${x + r * 0.28}" cy="${y}" r="${r * 0.13}" fill="#000" fill-opacity="0.6"/>`
    );
  }
  // eyelet: metal-ish ring around a dark hole
  return (
    `<circle cx="${x}" cy="${y}" r="${r}" fill="#000" fill-opacity="0.3"/>` +
    `<circle cx="${x}" cy="${y}" r="${r * 0.8}" fill="#fff" fill-opacity="0.5"/>` +
    `<circle cx="${x}" cy="${y}" r="${r * 0.45}" fill="#000" fill-opacity="0.85"/>`
  );
}
