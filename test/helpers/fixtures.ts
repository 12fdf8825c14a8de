// Test images generated in code, so every test states exactly what it feeds the service. Each is built once per
// process and cached. Colors are chosen so the expected analysis is known from the construction, not from a run.
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import sharp from 'sharp';

const cache = new Map<string, Promise<Buffer>>();
const once = (name: string, make: () => Promise<Buffer>): Promise<Buffer> => {
  let p = cache.get(name);
  if (!p) {
    p = make();
    cache.set(name, p);
  }
  return p;
};

export type Rgb = [number, number, number];
export const RED: Rgb = [0xc8, 0x10, 0x2e]; // ~ Pantone 186 C
export const NAVY: Rgb = [0x00, 0x33, 0xa0]; // ~ Pantone 286 C
export const YELLOW: Rgb = [0xff, 0xcd, 0x00]; // ~ Pantone 116 C
export const WHITE: Rgb = [0xff, 0xff, 0xff];
export const hex = (c: Rgb) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`.toUpperCase();

/** RGBA canvas with hard-edged (aliased) drawing, so colors are exact. */
class Canvas {
  readonly data: Buffer;
  constructor(
    readonly width: number,
    readonly height: number,
    fill: [number, number, number, number] = [0, 0, 0, 0],
  ) {
    this.data = Buffer.alloc(width * height * 4);
    for (let i = 0; i < width * height; i++) this.data.set(fill, i * 4);
  }
  set(x: number, y: number, c: Rgb, a = 255) {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = (y * this.width + x) * 4;
    this.data[i] = c[0];
    this.data[i + 1] = c[1];
    this.data[i + 2] = c[2];
    this.data[i + 3] = a;
  }
  rect(x0: number, y0: number, w: number, h: number, c: Rgb) {
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) this.set(x, y, c);
  }
  disc(cx: number, cy: number, r: number, c: Rgb) {
    for (let y = Math.floor(cy - r); y <= cy + r; y++)
      for (let x = Math.floor(cx - r); x <= cx + r; x++) if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) this.set(x, y, c);
  }
  ring(cx: number, cy: number, r: number, thickness: number, c: Rgb) {
    for (let y = Math.floor(cy - r); y <= cy + r; y++)
      for (let x = Math.floor(cx - r); x <= cx + r; x++) {
        const d = Math.hypot(x - cx, y - cy);
        if (d <= r && d > r - thickness) this.set(x, y, c);
      }
  }
  png(opts: { alpha?: boolean } = {}) {
    const img = sharp(this.data, { raw: { width: this.width, height: this.height, channels: 4 } });
    return (opts.alpha === false ? img.removeAlpha() : img).png({ compressionLevel: 6 }).toBuffer();
  }
}

/** The shapes of a simple two-color logo: a red disc with a navy ring and three bold navy bars. */
function drawLogo(c: Canvas, colors: { a: Rgb; b: Rgb }) {
  const s = Math.min(c.width, c.height);
  const cx = c.width / 2;
  const cy = c.height * 0.4;
  c.disc(cx, cy, s * 0.3, colors.a);
  c.ring(cx, cy, s * 0.3, s * 0.04, colors.b);
  for (let i = 0; i < 3; i++)
    c.rect(
      Math.round(cx - s * 0.35),
      Math.round(c.height * 0.75 + i * s * 0.07),
      Math.round(s * 0.7),
      Math.round(s * 0.04),
      colors.b,
    );
}

/** Crisp two-color logo on a transparent background (2400x3000, hard edges): counts exactly 2 colors. */
export const crispLogo = (width = 2400, height = 3000) =>
  once(`crisp-${width}x${height}`, () => {
    const c = new Canvas(width, height);
    drawLogo(c, { a: RED, b: NAVY });
    return c.png();
  });

/** The same two colors drawn by an SVG renderer with anti-aliased edges, including a thin diagonal and curves. */
export const antialiasedLogo = (width = 1200, height = 1500) =>
  once(`aa-${width}x${height}`, () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 1200 1500">
      <circle cx="600" cy="600" r="360" fill="${hex(RED)}"/>
      <circle cx="600" cy="600" r="340" fill="none" stroke="${hex(NAVY)}" stroke-width="40"/>
      <polygon points="600,330 680,540 900,540 720,670 790,880 600,750 410,880 480,670 300,540 520,540" fill="${hex(NAVY)}"/>
      <rect x="200" y="1100" width="800" height="70" rx="30" fill="${hex(NAVY)}" transform="rotate(-4 600 1135)"/>
      <rect x="260" y="1230" width="680" height="70" rx="30" fill="${hex(RED)}" transform="rotate(3 600 1265)"/>
    </svg>`;
    return sharp(Buffer.from(svg)).png().toBuffer();
  });

/** A two-color logo on a white box, saved as a JPEG: compression noise and ringing must not add colors. */
export const jpegLogoOnWhite = (width = 1600, height = 2000, quality = 80) =>
  once(`jpeg-${width}x${height}-${quality}`, async () => {
    const c = new Canvas(width, height, [255, 255, 255, 255]);
    drawLogo(c, { a: RED, b: NAVY });
    return sharp(await c.png({ alpha: false }))
      .jpeg({ quality })
      .toBuffer();
  });

/** The two-color logo with per-pixel noise (+-12 levels) baked in, small enough that no downsampling hides it. */
export const noisyLogo = (width = 480, height = 600) =>
  once(`noisy-${width}x${height}`, async () => {
    const c = new Canvas(width, height);
    drawLogo(c, { a: RED, b: NAVY });
    let seed = 99;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 24;
    for (let i = 0; i < width * height; i++) {
      if (c.data[i * 4 + 3] === 0) continue;
      for (let ch = 0; ch < 3; ch++) c.data[i * 4 + ch] = clamp(c.data[i * 4 + ch]! + rnd());
    }
    return c.png();
  });

/** Three colors where the third (yellow) is only a thin outline around the disc: 6 px at 2400 px wide. */
export const thinOutlineLogo = (width = 2400, height = 3000) =>
  once(`outline-${width}x${height}`, () => {
    const c = new Canvas(width, height);
    drawLogo(c, { a: RED, b: NAVY });
    c.ring(width / 2, height * 0.4, Math.min(width, height) * 0.3 + 6, 6, YELLOW);
    return c.png();
  });

/** The two-color logo with a soft, semi-transparent drop shadow (black at up to 45% opacity). */
export const softShadowLogo = (width = 1200, height = 1500) =>
  once(`shadow-${width}x${height}`, () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 1200 1500">
      <defs><filter id="s" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="40"/></filter></defs>
      <circle cx="640" cy="640" r="380" fill="#000" fill-opacity="0.45" filter="url(#s)"/>
      <circle cx="600" cy="600" r="360" fill="${hex(RED)}"/>
      <rect x="250" y="1150" width="700" height="90" fill="${hex(NAVY)}"/>
    </svg>`;
    return sharp(Buffer.from(svg)).png().toBuffer();
  });

/** Opaque PNG: the crisp logo sitting on a solid white rectangle that fills the canvas (no alpha channel). */
export const opaqueWhiteBox = (width = 2400, height = 3000) =>
  once(`box-${width}x${height}`, () => {
    const c = new Canvas(width, height, [255, 255, 255, 255]);
    drawLogo(c, { a: RED, b: NAVY });
    return c.png({ alpha: false });
  });

/** Three flat colors, for screen vs vinyl boundaries. */
export const threeColorLogo = (width = 2400, height = 3000) =>
  once(`three-${width}x${height}`, () => {
    const c = new Canvas(width, height);
    drawLogo(c, { a: RED, b: NAVY });
    c.disc(width / 2, height * 0.4, Math.min(width, height) * 0.12, YELLOW);
    return c.png();
  });

/** Many flat color stripes (no gradients): `n` distinct colors. */
export const stripes = (n: number, width = 2400, height = 3000) =>
  once(`stripes-${n}-${width}x${height}`, () => {
    const c = new Canvas(width, height);
    const band = Math.floor(width / n);
    for (let i = 0; i < n; i++) {
      // Hues spread around the circle at two lightness levels, so neighbors are clearly distinct.
      const h = (i / n) * 360;
      c.rect(i * band, 0, band, height, hsl(h, 0.85, i % 2 ? 0.35 : 0.6));
    }
    return c.png();
  });

function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

/**
 * Photo-like image: smooth multi-hue gradients, soft blobs and grain, saved as JPEG. A printer would call this
 * full color: it must count many colors and go to DTG.
 */
export const gradientPhoto = (width = 2400, height = 3000) =>
  once(`photo-${width}x${height}`, async () => {
    const raw = Buffer.alloc(width * height * 3);
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
    const blobs = Array.from({ length: 7 }, (_, i) => ({
      x: ((i * 0.37 + 0.1) % 1) * width,
      y: ((i * 0.61 + 0.2) % 1) * height,
      r: (0.12 + (i % 3) * 0.06) * Math.min(width, height),
      c: hsl(i * 51, 0.7, 0.5),
    }));
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const u = x / width;
        const v = y / height;
        let r = 255 * (0.5 + 0.5 * Math.sin(u * 5 + v * 2));
        let g = 255 * (0.5 + 0.5 * Math.sin(v * 4 + 1 + u));
        let b = 255 * (0.5 + 0.5 * Math.cos((u + v) * 3));
        for (const bl of blobs) {
          const w = Math.exp(-((x - bl.x) ** 2 + (y - bl.y) ** 2) / (2 * bl.r * bl.r));
          r = r * (1 - w) + bl.c[0] * w;
          g = g * (1 - w) + bl.c[1] * w;
          b = b * (1 - w) + bl.c[2] * w;
        }
        const n = rnd() * 16;
        const i = (y * width + x) * 3;
        raw[i] = clamp(r + n);
        raw[i + 1] = clamp(g + n);
        raw[i + 2] = clamp(b + n);
      }
    }
    return sharp(raw, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 85 })
      .toBuffer();
  });

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** A smooth two-color gradient (navy to red) as a transparent-free PNG: few hues, but continuous tone. */
export const twoToneGradient = (width = 2400, height = 3000) =>
  once(`grad2-${width}x${height}`, () => {
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const t = x / (width - 1);
        const i = (y * width + x) * 3;
        for (let ch = 0; ch < 3; ch++) raw[i + ch] = Math.round(NAVY[ch]! * (1 - t) + RED[ch]! * t);
      }
    return sharp(raw, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
  });

/** A design whose only details are hairlines: 2 px lines every 12 px (at 2400 px wide, about 0.01 in lines). */
export const hairlines = (width = 2400, height = 3000) =>
  once(`hair-${width}x${height}`, () => {
    const c = new Canvas(width, height);
    for (let x = 0; x < width; x += 12) c.rect(x, 0, 2, height, NAVY);
    for (let y = 0; y < height; y += 40) c.rect(0, y, width, 2, RED);
    return c.png();
  });

/** White artwork on transparency: invisible on a white shirt. */
export const whiteOnTransparent = (width = 2400, height = 3000) =>
  once(`white-${width}x${height}`, () => {
    const c = new Canvas(width, height);
    drawLogo(c, { a: WHITE, b: NAVY });
    return c.png();
  });

/** A logo where only a few scattered pixels are transparent (hasTransparency must still say true). */
export const almostOpaque = (width = 800, height = 1000) =>
  once(`almost-${width}x${height}`, () => {
    const c = new Canvas(width, height, [255, 255, 255, 255]);
    drawLogo(c, { a: RED, b: NAVY });
    for (let i = 0; i < 5; i++) c.set(100 + i * 50, 50, WHITE, 0);
    return c.png();
  });

/** A low-resolution copy of the crisp logo (300x375). */
export const lowRes = () => crispLogo(300, 375);

/** Encodes any fixture in another container. */
export const asFormat = (buf: Buffer, format: 'png' | 'jpeg' | 'webp' | 'gif') =>
  once(`fmt-${format}-${buf.length}-${buf.subarray(buf.length - 16).toString('hex')}`, () =>
    sharp(buf)[format]().toBuffer(),
  );

/** A valid, incompressible PNG of random noise just over 10 MB (2000x1800 RGB = 10.8 MB of pixels). */
export const oversizedPng = () =>
  once('oversized', () =>
    sharp(randomBytes(2000 * 1800 * 3), { raw: { width: 2000, height: 1800, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer(),
  );

// --- hand-built files -----------------------------------------------------------------------------------------

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/**
 * Decompression bomb: a complete, valid 1-bit grayscale PNG of `side` x `side` zeros. The file is about 100 KB for
 * 30000x30000, yet decodes to 900 million pixels (3.6 GB as RGBA).
 */
export const decompressionBomb = (side = 30000) =>
  once(`bomb-${side}`, async () => {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(side, 0);
    ihdr.writeUInt32BE(side, 4);
    ihdr[8] = 1; // bit depth
    ihdr[9] = 0; // grayscale
    const rowBytes = 1 + Math.ceil(side / 8); // filter byte + packed bits
    const rowsPerChunk = Math.max(1, Math.floor((4 << 20) / rowBytes));
    const zero = Buffer.alloc(rowsPerChunk * rowBytes);
    const deflate = zlib.createDeflate({ level: 9 });
    const out: Buffer[] = [];
    deflate.on('data', (d: Buffer) => out.push(d));
    const done = new Promise<void>((resolve, reject) => {
      deflate.on('end', resolve);
      deflate.on('error', reject);
    });
    for (let rows = 0; rows < side; rows += rowsPerChunk) {
      const n = Math.min(rowsPerChunk, side - rows);
      if (!deflate.write(zero.subarray(0, n * rowBytes))) await new Promise((r) => deflate.once('drain', r));
    }
    deflate.end();
    await done;
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    return Buffer.concat([
      sig,
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', Buffer.concat(out)),
      pngChunk('IEND', Buffer.alloc(0)),
    ]);
  });

/** A GIF whose logical screen claims 65535x65535 (header only; the rest is a minimal frame). */
export function gifHeaderBomb(): Buffer {
  const b = Buffer.from(
    'GIF89a\xff\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;',
    'latin1',
  );
  return b;
}

/** The first `fraction` of a valid PNG: the header is intact, the pixel data stops short. */
export const truncatedPng = async (fraction = 0.5) => {
  const full = await crispLogo(600, 750);
  return full.subarray(0, Math.floor(full.length * fraction));
};

/** A valid JPEG with a stretch of its entropy-coded data overwritten: the header reads, the pixels do not. */
export const corruptJpeg = async () => {
  const full = Buffer.from(await jpegLogoOnWhite(600, 750));
  const copy = Buffer.from(full);
  copy.fill(0xff, Math.floor(copy.length * 0.4), Math.floor(copy.length * 0.4) + 64);
  return copy.subarray(0, Math.floor(copy.length * 0.7));
};

/** PNG magic followed by garbage. */
export const pngMagicGarbage = () =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);

export const SVG = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><circle cx="50" cy="50" r="40" fill="red"/></svg>',
);

export const toDataUrl = (buf: Buffer, mime = 'image/png') => `data:${mime};base64,${buf.toString('base64')}`;
