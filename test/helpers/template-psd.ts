// A synthetic perspective mockup template written with ag-psd (for pictures, the engine's placement test and the
// service's tests and bench): a wall-and-table photo stand-in, a smart object in perspective with an embedded PNG,
// and two layers above it, a multiply shadow and a screen highlight. Not a Photoshop file: fidelity is measured on
// test/fixtures/templates; this one shows where a design lands.
import { initializeCanvas, writePsdBuffer, type Layer, type Psd } from 'ag-psd';
import { PNG } from 'pngjs';
import { parseTemplate, prepareTemplate, type PreparedTemplate, type Quad, type RawImage } from '../../lib/templates';
import { mockupPsd } from './psd';

export const PERSPECTIVE_QUAD: Quad = [
  [230, 110],
  [560, 150],
  [545, 470],
  [245, 430],
];

type Img = { width: number; height: number; data: Uint8ClampedArray };

function image(w: number, h: number, f: (x: number, y: number) => [number, number, number, number]): Img {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(f(x, y), (y * w + x) * 4);
  return { width: w, height: h, data };
}

let ready = false;

/** The template's bytes (width x height = 800 x 600 at scale 1); `ppi`: the resolution kept with the smart object's
 * 400 x 400 content (ag-psd writes 72 without it), which gives it its physical print size. */
export function perspectiveTemplatePsd(scale = 1, opts: { ppi?: number } = {}): Buffer {
  if (!ready) {
    initializeCanvas(
      () => {
        throw new Error('no canvas');
      },
      (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }) as never,
    );
    ready = true;
  }
  const W = 800 * scale;
  const H = 600 * scale;
  const s = (v: number) => v * scale;
  const bg = image(W, H, (x, y) => {
    const table = y > s(500);
    const v = table ? 150 - ((y - s(500)) / s(100)) * 30 : 225 - (y / H) * 25 + Math.sin(x / s(7)) * 2;
    return table ? [v, v * 0.8, v * 0.6, 255] : [v, v * 0.97, v * 0.92, 255];
  });
  // the content Photoshop would show in the smart object: a plain grey card
  const content = image(400, 400, (x, y) =>
    x < 8 || y < 8 || x > 391 || y > 391 ? [120, 120, 120, 255] : [238, 238, 238, 255],
  );
  const png = new PNG({ width: 400, height: 400 });
  png.data = Buffer.from(content.data);
  const id = '20953ddb-9391-11ec-b4f1-c15674f50bc4';
  const q = PERSPECTIVE_QUAD.map(([x, y]) => [s(x), s(y)]);
  const xs = q.map((p) => p[0]!);
  const ys = q.map((p) => p[1]!);
  const shadow = image(W, H, (x, y) => {
    // darker towards the right and the bottom of the card, as a window light from the upper left would
    const v = 255 - Math.max(0, Math.min(90, ((x - s(300)) / s(300)) * 70 + ((y - s(200)) / s(300)) * 40));
    return [v, v, v, 255];
  });
  const highlight = image(W, H, (x, y) => {
    const d = Math.abs(x + y - s(620)) / s(60);
    const v = Math.max(0, 110 * Math.exp(-d * d));
    return [v, v, v, 255];
  });
  const children: Layer[] = [
    { name: 'Background', imageData: bg as never, left: 0, top: 0 },
    {
      name: 'Your design here',
      left: Math.floor(Math.min(...xs)),
      top: Math.floor(Math.min(...ys)),
      imageData: image(
        Math.ceil(Math.max(...xs)) - Math.floor(Math.min(...xs)),
        Math.ceil(Math.max(...ys)) - Math.floor(Math.min(...ys)),
        () => [0, 0, 0, 0],
      ) as never,
      placedLayer: {
        id,
        type: 'raster',
        transform: q.flat(),
        nonAffineTransform: q.flat(),
        width: 400,
        height: 400,
        ...(opts.ppi ? { resolution: { units: 'Density' as const, value: opts.ppi } } : {}),
      },
    },
    { name: 'Shadow', blendMode: 'multiply', imageData: shadow as never, left: 0, top: 0 },
    { name: 'Highlight', blendMode: 'screen', opacity: 0.7, imageData: highlight as never, left: 0, top: 0 },
  ];
  const psd: Psd = {
    width: W,
    height: H,
    children,
    linkedFiles: [{ id, name: 'card.png', data: PNG.sync.write(png) }],
  };
  return writePsdBuffer(psd);
}

/** A colourful test design: stripes and a disc, opaque. */
export function testDesign(w = 600, h = 600): RawImage {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const disc = Math.hypot(x - w / 2, y - h / 2) < Math.min(w, h) * 0.3;
      const stripe = Math.floor((x + y) / (w / 10)) % 2 === 0;
      const c = disc ? [250, 200, 20] : stripe ? [220, 40, 60] : [30, 90, 200];
      data[i] = c[0]!;
      data[i + 1] = c[1]!;
      data[i + 2] = c[2]!;
      data[i + 3] = 255;
    }
  return { width: w, height: h, data };
}

/** A prepared 700x600 template of the bench's kind: one smart object in perspective with 400x400 content, the layers
 * above covering the whole document (so they fold). */
export function benchKindTemplate(): PreparedTemplate {
  return prepareTemplate(
    parseTemplate(
      mockupPsd({
        width: 700,
        height: 600,
        quad: [150, 120, 560, 140, 540, 520, 170, 500],
        content: { width: 400, height: 400 },
      }),
    ),
  );
}
