// Step 5 of the palette (lib/analysis/palette.ts): edge and translucent pixels explained by the counted inks (the
// same ink, or anti-aliasing between two), and what is left grouped into inks that occur only in fine detail (thin
// lines, small text, translucent pixels).
import { deltaE76, rgbToLab, type Lab } from './color';
import { BINS, type PALETTE_TUNING } from './palette-tuning';

export interface Ink {
  rgb: [number, number, number];
  lab: Lab;
  weight: number;
  kind: 'area' | 'fine';
}

export interface Leftovers {
  hEdge: Uint32Array;
  sEdge: Float64Array;
  hTr: Float64Array;
  sTr: Float64Array;
}

/**
 * Distance from point p to the segment a-b in RGB, optionally extended by `overshoot` (a fraction of its length) past
 * both ends: sharpening, resampling and JPEG ringing push edge pixels slightly beyond the two colors they separate.
 */
function segmentDistance(p: readonly number[], a: readonly number[], b: readonly number[], overshoot = 0): number {
  const ab = [b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!];
  const ap = [p[0]! - a[0]!, p[1]! - a[1]!, p[2]! - a[2]!];
  const len2 = ab[0]! ** 2 + ab[1]! ** 2 + ab[2]! ** 2;
  const t =
    len2 === 0
      ? 0
      : Math.max(-overshoot, Math.min(1 + overshoot, (ap[0]! * ab[0]! + ap[1]! * ab[1]! + ap[2]! * ab[2]!) / len2));
  return Math.hypot(ap[0]! - t * ab[0]!, ap[1]! - t * ab[1]!, ap[2]! - t * ab[2]!);
}

/**
 * Assigns edge and translucent pixels to the inks they belong to, and returns groups of pixels that no counted ink
 * explains (candidate inks that occur only in fine detail). Mutates the weights of `inks`.
 */
export function explainLeftovers(inks: Ink[], h: Leftovers, T: typeof PALETTE_TUNING, minWeight: number): Ink[] {
  const merge = T.MERGE_DE;
  const nearest = (lab: Lab) => {
    let best = -1;
    let bestD = Infinity;
    inks.forEach((c, i) => {
      const d = deltaE76(c.lab, lab);
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    });
    return { best, bestD };
  };

  // Translucent pixels keep their ink's color (alpha is separate), so they group by color.
  const direct: { rgb: number[]; lab: Lab; weight: number }[] = [];
  for (let k = 0; k < BINS; k++) {
    const wgt = h.hTr[k]!;
    if (wgt <= 0) continue;
    const rgb = [h.sTr[k * 3]! / wgt, h.sTr[k * 3 + 1]! / wgt, h.sTr[k * 3 + 2]! / wgt];
    const lab = rgbToLab(rgb[0]!, rgb[1]!, rgb[2]!) as Lab;
    const { best, bestD } = nearest(lab);
    if (best >= 0 && bestD <= merge) {
      inks[best]!.weight += wgt;
      continue;
    }
    const g = direct.find((d) => deltaE76(d.lab, lab) <= merge);
    if (g) {
      g.rgb = g.rgb.map((v, i) => (v * g.weight + rgb[i]! * wgt) / (g.weight + wgt));
      g.weight += wgt;
    } else direct.push({ rgb, lab, weight: wgt });
  }

  // Solid edge pixels are blends: of two counted inks (anti-aliasing), or of a counted ink and an ink that only
  // appears in lines too thin to have an interior. The latter are grouped by direction from the ink they blend with.
  const rays: { anchor: number; dir: number[]; far: number[]; farD: number; weight: number }[] = [];
  for (let k = 0; k < BINS; k++) {
    const cnt = h.hEdge[k]!;
    if (cnt === 0) continue;
    const rgb = [h.sEdge[k * 3]! / cnt, h.sEdge[k * 3 + 1]! / cnt, h.sEdge[k * 3 + 2]! / cnt];
    const lab = rgbToLab(rgb[0]!, rgb[1]!, rgb[2]!) as Lab;
    const { best, bestD } = nearest(lab);
    if (best >= 0 && bestD <= merge) {
      inks[best]!.weight += cnt;
      continue;
    }
    let blend = false;
    for (let i = 0; i < inks.length && !blend; i++)
      for (let j = i + 1; j < inks.length && !blend; j++)
        if (segmentDistance(rgb, inks[i]!.rgb, inks[j]!.rgb, T.EDGE_OVERSHOOT) <= T.MIX_DIST) blend = true;
    if (blend) continue; // anti-aliasing (or ringing) between two inks: no ink of its own
    if (inks.length === 0) {
      // Nothing to blend with: treat as direct evidence.
      const g = direct.find((d) => deltaE76(d.lab, lab) <= merge);
      if (g) g.weight += cnt;
      else direct.push({ rgb, lab, weight: cnt });
      continue;
    }
    // Anchor: the nearest counted ink in RGB.
    let anchor = 0;
    let anchorD = Infinity;
    inks.forEach((c, i) => {
      const d = Math.hypot(rgb[0]! - c.rgb[0], rgb[1]! - c.rgb[1], rgb[2]! - c.rgb[2]);
      if (d < anchorD) {
        anchorD = d;
        anchor = i;
      }
    });
    const a = inks[anchor]!.rgb;
    const v = [rgb[0]! - a[0], rgb[1]! - a[1], rgb[2]! - a[2]];
    const len = Math.hypot(v[0]!, v[1]!, v[2]!) || 1;
    const dir = v.map((x) => x / len);
    const ray = rays.find(
      (r) => r.anchor === anchor && r.dir[0]! * dir[0]! + r.dir[1]! * dir[1]! + r.dir[2]! * dir[2]! >= T.RAY_COS,
    );
    if (ray) {
      ray.weight += cnt;
      if (len > ray.farD) {
        ray.farD = len;
        ray.far = rgb;
      }
    } else rays.push({ anchor, dir, far: rgb, farD: len, weight: cnt });
  }

  const out: Ink[] = direct.map((d) => ({
    rgb: d.rgb as [number, number, number],
    lab: d.lab,
    weight: d.weight,
    kind: 'fine' as const,
  }));
  for (const r of rays) {
    const lab = rgbToLab(r.far[0]!, r.far[1]!, r.far[2]!) as Lab;
    // A translucent group of the same ink (e.g. the soft edge of the same hairline) is the same color.
    const same = out.find((o) => deltaE76(o.lab, lab) <= merge * 2);
    if (same) same.weight += r.weight;
    else out.push({ rgb: r.far as [number, number, number], lab, weight: r.weight, kind: 'fine' });
  }
  // Groups too small to count are noise; they must not serve as the end of a blend line either.
  return dropBlends(
    inks,
    out.filter((o) => o.weight >= minWeight),
    T.MIX_DIST,
  );
}

/**
 * Where fine lines of two inks cross or touch, their pixels blend into colors between the two. A candidate that
 * lies on the segment between two other colors (counted inks or stronger candidates) is such a blend, whatever its
 * weight; the extremes of each blend line remain. The weakest candidates are tested first, so of two candidates that
 * explain each other the stronger one is kept.
 */
function dropBlends(inks: Ink[], candidates: Ink[], mixDist: number): Ink[] {
  const alive = [...candidates].sort((x, y) => x.weight - y.weight);
  for (let i = 0; i < alive.length;) {
    const c = alive[i]!;
    const others = [...inks, ...alive.filter((_, j) => j !== i)];
    let blend = false;
    for (let x = 0; x < others.length && !blend; x++)
      for (let y = x + 1; y < others.length && !blend; y++)
        if (segmentDistance(c.rgb, others[x]!.rgb, others[y]!.rgb) <= mixDist) blend = true;
    if (blend) alive.splice(i, 1);
    else i++;
  }
  return alive;
}
