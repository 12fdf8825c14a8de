// Several designs whose smart objects' frames overlap: the fast path (fast.ts) writes each filled smart object's
// frame on its own, over what lies below it with the other smart objects' own content, so a design above would be
// covered by (or drawn over) its neighbour's own content. Such renders go through renderTemplate, which draws them in
// layer order (each at its own stack position, with the layers between them), flattened on white like the fast path.
import type { Frame } from './composite';
import { renderPlan, renderTemplateRgb, type RgbRender } from './fast';
import type { LevelsCache } from './paint';
import type { PreparedTemplate } from './prepare';
import { renderTemplate } from './render';
import type { RenderOptions, TemplateFill } from './types';

const meets = (a: Frame, b: Frame) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The filled smart objects' frames, and whether any two of them overlap. */
export function filledFrames(p: PreparedTemplate, fills: TemplateFill[]): { frames: Frame[]; overlap: boolean } {
  const frames: Frame[] = [];
  for (const f of fills) {
    const fr = p.smart.find((s) => s.info.id === f.smartObjectId)?.frame;
    if (fr) frames.push(fr);
  }
  const overlap = frames.some((a, i) => frames.some((b, j) => j > i && meets(a, b)));
  return { frames, overlap };
}

/**
 * The template rendered with each design in its smart object as RGB over white: renderTemplateRgb, or, when filled
 * smart objects overlap, renderTemplate (layer order) with the changed frames flattened onto the RGB baseline.
 */
export function renderTemplateOrderedRgb(
  p: PreparedTemplate,
  fills: TemplateFill[],
  opts: RenderOptions = {},
  out?: Buffer,
  levels?: LevelsCache,
): RgbRender {
  const { frames, overlap } = filledFrames(p, fills);
  if (!overlap) return renderTemplateRgb(p, fills, opts, out, levels);
  const img = renderTemplate(p, fills, opts);
  const rgb = renderPlan(p).rgb;
  const data = out ?? Buffer.allocUnsafe(rgb.length);
  if (data.length !== rgb.length) throw new RangeError('renderTemplateOrderedRgb: output buffer of the wrong size');
  rgb.copy(data);
  const W = p.width;
  for (const f of frames)
    for (let y = f.y; y < f.y + f.h; y++)
      for (let x = f.x; x < f.x + f.w; x++) {
        const s = (y * W + x) * 4;
        const d = (y * W + x) * 3;
        const a = img.data[s + 3]!;
        for (let c = 0; c < 3; c++) data[d + c] = Math.round((img.data[s + c]! * a + 255 * (255 - a)) / 255);
      }
  return { width: p.width, height: p.height, data, frames };
}
