// PSD files for the template tests and the bench: well-formed ones written with ag-psd's own writer (a mockup with a
// smart object, layers above it, an embedded design), and hostile ones written byte by byte (a raw layer section
// whose lengths and sizes say whatever the test needs).
import { deflateSync } from 'node:zlib';
import { initializeCanvas, writePsdBuffer, type Layer, type Psd } from 'ag-psd';

let canvasReady = false;
/** ag-psd wants a canvas factory even for image data; plain objects are enough for writing. */
export function agPsdWithoutCanvas(): void {
  if (canvasReady) return;
  initializeCanvas(
    (() => {
      throw new Error('no canvas in Node: use imageData');
    }) as never,
    ((width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) })) as never,
  );
  canvasReady = true;
}

export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/** A solid RGBA image, or one whose pixels `fill(x, y)` gives. */
export function pixels(
  width: number,
  height: number,
  fill: [number, number, number, number] | ((x: number, y: number) => [number, number, number, number]),
): Pixels {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set(typeof fill === 'function' ? fill(x, y) : fill, (y * width + x) * 4);
  return { width, height, data };
}

const SMART_ID = '20953ddb-9391-11ec-b4f1-c15674f50bc4';

export interface MockupPsdOptions {
  width?: number;
  height?: number;
  /** where the smart object sits: its corners TL, TR, BR, BL in document pixels (a perspective quad when not a box) */
  quad?: [number, number, number, number, number, number, number, number];
  /** the smart object's content size */
  content?: { width: number; height: number };
  /** layers over the smart object (a multiply shadow and a screen highlight by default: two) */
  layersAbove?: number;
  /** write a PSB (version 2) */
  psb?: boolean;
  /** noise in the background (an incompressible file of the size a photo would make) */
  noise?: boolean;
  name?: string;
}

/**
 * A mockup as a designer would save it: a background photo, a smart object (placed layer) whose content is an
 * embedded PNG-less raster (Photoshop's own pixels for the layer plus the linked file), shadows and highlights
 * above it, and the composite.
 */
export function mockupPsd(opts: MockupPsdOptions = {}): Buffer {
  agPsdWithoutCanvas();
  const width = opts.width ?? 600;
  const height = opts.height ?? 400;
  const content = opts.content ?? { width: 200, height: 150 };
  const q = opts.quad ?? [200, 120, 400, 120, 400, 270, 200, 270];
  const left = Math.floor(Math.min(q[0], q[6]));
  const top = Math.floor(Math.min(q[1], q[3]));
  const right = Math.ceil(Math.max(q[2], q[4]));
  const bottom = Math.ceil(Math.max(q[5], q[7]));
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256) as number;
  const bg = pixels(
    width,
    height,
    opts.noise ? () => [rnd(), rnd(), rnd(), 255] : (x, y) => [220 - (y % 20), 210, 200 + (x % 30), 255],
  );
  const inner = writePsdBuffer({
    width: content.width,
    height: content.height,
    imageData: pixels(content.width, content.height, [30, 90, 200, 255]),
    children: [{ name: 'content', imageData: pixels(content.width, content.height, [30, 90, 200, 255]) }],
  } as Psd);
  const above: Layer[] = [];
  const n = opts.layersAbove ?? 2;
  for (let i = 0; i < n; i++)
    above.push(
      i % 2 === 0
        ? {
            name: `shadow ${i + 1}`,
            blendMode: 'multiply',
            imageData: pixels(width, height, (x) => [90 + (x % 60), 90, 90, 80]),
          }
        : {
            name: `highlight ${i + 1}`,
            blendMode: 'screen',
            imageData: pixels(width, height, (_x, y) => [60, 60, 60 + (y % 40), 60]),
          },
    );
  const psd: Psd = {
    width,
    height,
    imageData: bg,
    linkedFiles: [{ id: SMART_ID, name: 'design.psb', data: inner }],
    children: [
      { name: 'Background photo', imageData: bg },
      {
        name: opts.name ?? 'Your design',
        left,
        top,
        imageData: pixels(right - left, bottom - top, [30, 90, 200, 255]),
        placedLayer: {
          id: SMART_ID,
          placed: SMART_ID,
          type: 'raster',
          transform: [...q],
          width: content.width,
          height: content.height,
        },
      },
      ...above,
    ],
  };
  return Buffer.from(writePsdBuffer(psd, { psb: opts.psb ?? false, noBackground: false } as never));
}

// ---- hostile files, byte by byte ----

export interface RawLayer {
  top?: number;
  left?: number;
  bottom?: number;
  right?: number;
  /** channel id, the length the record claims, and the data actually written (compression word included) */
  channels?: { id: number; length: number; data: Buffer }[];
  /** lsct divider: 1 a group's start, 3 its end */
  divider?: 1 | 3;
}

const u16 = (n: number) => Buffer.from([(n >> 8) & 255, n & 255]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** A PSD whose layer section holds exactly the records given (8-bit RGB), and a raw composite of the canvas. */
export function rawPsd(opts: { width: number; height: number; layers: RawLayer[]; composite?: boolean }): Buffer {
  const records: Buffer[] = [];
  const data: Buffer[] = [];
  for (const l of opts.layers) {
    const channels = l.channels ?? [];
    const name = Buffer.from([3, 0x61, 0x62, 0x63]); // "abc", padded to 4
    const extra = [u32(0), u32(0), name];
    if (l.divider) extra.push(Buffer.from('8BIMlsct', 'latin1'), u32(4), u32(l.divider));
    const extraBuf = Buffer.concat(extra);
    records.push(
      Buffer.concat([
        u32(l.top ?? 0),
        u32(l.left ?? 0),
        u32(l.bottom ?? 0),
        u32(l.right ?? 0),
        u16(channels.length),
        ...channels.map((c) => Buffer.concat([u16(c.id & 0xffff), u32(c.length)])),
        Buffer.from('8BIMnorm', 'latin1'),
        Buffer.from([255, 0, 8, 0]),
        u32(extraBuf.length),
        extraBuf,
      ]),
    );
    for (const c of channels) data.push(c.data);
  }
  const layerInfo = Buffer.concat([u16(opts.layers.length), ...records, ...data]);
  const layerAndMask = Buffer.concat([u32(layerInfo.length), layerInfo, u32(0)]);
  const header = Buffer.concat([
    Buffer.from('8BPS', 'latin1'),
    u16(1),
    Buffer.alloc(6),
    u16(3),
    u32(opts.height),
    u32(opts.width),
    u16(8),
    u16(3),
  ]);
  const composite =
    opts.composite === false
      ? Buffer.alloc(0)
      : Buffer.concat([u16(0), Buffer.alloc(opts.width * opts.height * 3, 200)]);
  return Buffer.concat([header, u32(0), u32(0), u32(layerAndMask.length), layerAndMask, composite]);
}

/** A ZIP channel (compression 2) that inflates to `bytes` bytes of zeros. */
export function zipChannel(bytes: number): Buffer {
  return Buffer.concat([u16(2), deflateSync(Buffer.alloc(bytes), { level: 9 })]);
}
