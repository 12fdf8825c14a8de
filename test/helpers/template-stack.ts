// Small templates written with ag-psd for the engine's stack tests: two smart objects in perspective that overlap,
// with a multiply layer between them and a screen layer over both; and one smart object over a folded backdrop.
// `contents` are the smart objects' embedded images (PNG): a template written with a design as its content is the
// oracle of a render that fills the smart object with that design.
import { writePsdBuffer, type Layer, type Psd } from 'ag-psd';
import { PNG } from 'pngjs';
import type { RawImage } from '../../lib/templates';
import { agPsdWithoutCanvas, pixels } from './psd';

export const STACK_W = 320;
export const STACK_H = 220;
const QUAD_A = [40, 40, 180, 52, 172, 150, 48, 142];
const QUAD_B = [120, 64, 262, 74, 252, 178, 128, 166];

function png(img: RawImage): Buffer {
  const p = new PNG({ width: img.width, height: img.height });
  p.data = Buffer.from(img.data);
  return PNG.sync.write(p);
}

function placed(name: string, id: string, q: number[], c: RawImage, extra: Partial<Layer> = {}): Layer {
  const xs = q.filter((_, i) => i % 2 === 0);
  const ys = q.filter((_, i) => i % 2 === 1);
  const left = Math.floor(Math.min(...xs));
  const top = Math.floor(Math.min(...ys));
  return {
    name,
    left,
    top,
    imageData: pixels(Math.ceil(Math.max(...xs)) - left, Math.ceil(Math.max(...ys)) - top, [0, 0, 0, 0]) as never,
    placedLayer: { id, type: 'raster', transform: q, nonAffineTransform: q, width: c.width, height: c.height },
    ...extra,
  };
}

/** A solid or striped RGBA image (stripes make a misplaced design visible). */
export function stripes(w: number, h: number, a: [number, number, number], b: [number, number, number]): RawImage {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) data.set([...(Math.floor((x + 2 * y) / 12) % 2 ? a : b), 255], (y * w + x) * 4);
  return { width: w, height: h, data };
}

/** Two overlapping smart objects (ids "1" below, "2" above; B at 80 % opacity), a multiply band between them. */
export function overlappingTemplatePsd(contentA: RawImage, contentB: RawImage): Buffer {
  agPsdWithoutCanvas();
  const idA = '11111111-9391-11ec-b4f1-c15674f50bc4';
  const idB = '22222222-9391-11ec-b4f1-c15674f50bc4';
  const children: Layer[] = [
    {
      name: 'Background',
      left: 0,
      top: 0,
      imageData: pixels(STACK_W, STACK_H, (x, y) => [200, 190 - y / 4, 170 + x / 8, 255]) as never,
    },
    placed('A', idA, QUAD_A, contentA),
    {
      name: 'Band',
      blendMode: 'multiply',
      left: 100,
      top: 0,
      imageData: pixels(110, STACK_H, (_x, y) => [180, 150 + (y % 50), 120, 200]) as never,
    },
    placed('B', idB, QUAD_B, contentB, { opacity: 0.8 }),
    {
      name: 'Light',
      blendMode: 'screen',
      left: 0,
      top: 0,
      imageData: pixels(STACK_W, STACK_H, (x) => [x / 6, x / 6, x / 6, 255]) as never,
    },
  ];
  const psd: Psd = {
    width: STACK_W,
    height: STACK_H,
    children,
    linkedFiles: [
      { id: idA, name: 'a.png', data: png(contentA) },
      { id: idB, name: 'b.png', data: png(contentB) },
    ],
  };
  return writePsdBuffer(psd);
}

/** One smart object over a backdrop with folds (horizontal ridges of light and shade), or a flat one. */
export function foldedTemplatePsd(content: RawImage, folds: boolean): Buffer {
  agPsdWithoutCanvas();
  const id = '33333333-9391-11ec-b4f1-c15674f50bc4';
  const bg = pixels(STACK_W, STACK_H, (_x, y) => {
    const v = folds ? 170 + 70 * Math.sin(y / 9) : 200;
    return [v, v, v, 255];
  });
  const psd: Psd = {
    width: STACK_W,
    height: STACK_H,
    children: [{ name: 'Photo', left: 0, top: 0, imageData: bg as never }, placed('Print', id, QUAD_A, content)],
    linkedFiles: [{ id, name: 'print.png', data: png(content) }],
  };
  return writePsdBuffer(psd);
}

/** A smooth RGBA image from colour `a` (top left) to `b` (bottom right): survives resampling and JPEG. */
export function gradient(w: number, h: number, a: [number, number, number], b: [number, number, number]): RawImage {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const t = (x + y) / (w + h - 2);
      data.set([...a.map((v, c) => Math.round(v + (b[c]! - v) * t)), 255], (y * w + x) * 4);
    }
  return { width: w, height: h, data };
}

/** A multiply layer clipped to the garment, over the print. */
const shadingLayer = (): Layer => ({
  name: 'Shading',
  blendMode: 'multiply',
  clipping: true,
  left: 0,
  top: 0,
  imageData: pixels(STACK_W, STACK_H, (_x, y) => [200 + (y % 40), 200 + (y % 40), 200 + (y % 40), 255]) as never,
});

/** One smart object clipped to a soft-edged garment shape below it (with folds: horizontal ridges of light and shade,
 * on a transparent layer over a flat photo), with a multiply shading layer clipped to the same shape above it: the
 * design must show only where the shape does, and its derived displacement follows the garment's folds. Without
 * `shading` the print is alone in its clipping group (the render's fast pass folds it); `garmentFill` is the shape's
 * fill opacity (it fades the garment's own pixels, not the print clipped to it). */
export function clippedTemplatePsd(content: RawImage, shading = true, garmentFill = 1): Buffer {
  agPsdWithoutCanvas();
  const id = '44444444-9391-11ec-b4f1-c15674f50bc4';
  const cx = 110;
  const cy = 96;
  // an ellipse with a 6 px soft edge, inside the smart object's quad on the left and past it on the right
  const inShape = (x: number, y: number) => Math.hypot((x - cx) / 80, (y - cy) / 52);
  const soft = (x: number, y: number) => Math.round(255 * Math.min(1, Math.max(0, (1 - inShape(x, y)) * 10)));
  const psd: Psd = {
    width: STACK_W,
    height: STACK_H,
    children: [
      {
        name: 'Photo',
        left: 0,
        top: 0,
        imageData: pixels(STACK_W, STACK_H, [90, 120, 140, 255]) as never,
      },
      {
        name: 'Garment',
        left: 0,
        top: 0,
        fillOpacity: garmentFill,
        imageData: pixels(STACK_W, STACK_H, (x, y) => {
          const v = 170 + 60 * Math.sin(y / 9);
          return [v, v, v - 10, soft(x, y)];
        }) as never,
      },
      placed('Print', id, QUAD_A, content, { clipping: true }),
      ...(shading ? [shadingLayer()] : []),
    ],
    linkedFiles: [{ id, name: 'print.png', data: png(content) }],
  };
  return writePsdBuffer(psd);
}
