import assert from 'node:assert/strict';
import { threadId } from 'node:worker_threads';
import {
  ANALYSIS_THREAD_YOUNG_MB,
  AnalysisPool,
  analyzePixels,
  ciede2000,
  extractPalette,
  hexToLab,
  nearestPantone,
  pantoneLabel,
  PANTONE_TABLE,
  rgbToLab,
  type PixelInput,
} from '../../lib/analysis';
import { detectBackgroundBox, fineDetailShare, lowContrastColors, printSize } from '../../lib/analysis/features';
import { decodeRaster } from '../../lib/images';
import * as F from '../helpers/fixtures';

type Rgba = [number, number, number, number];

/** An RGBA raster painted by a function of (x, y): tests state the pixels they analyze. */
function raster(w: number, h: number, paint: (x: number, y: number) => Rgba) {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(paint(x, y), (y * w + x) * 4);
  return { data, width: w, height: h };
}
const RED: Rgba = [200, 16, 46, 255];
const NAVY: Rgba = [0, 51, 160, 255];
const CLEAR: Rgba = [0, 0, 0, 0];
const mix = (a: Rgba, b: Rgba, t: number): Rgba =>
  [0, 1, 2, 3].map((i) => Math.round(a[i]! * (1 - t) + b[i]! * t)) as Rgba;
let seed = 7;
const noise = (amp: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 2 * amp;
const noisy = (c: Rgba, amp: number): Rgba =>
  [...c.slice(0, 3).map((v) => Math.max(0, Math.min(255, Math.round(v + noise(amp))))), c[3]] as Rgba;

describe('color science', () => {
  it('converts sRGB to CIELAB (D65) to reference values', () => {
    const close = (a: number[], b: number[]) =>
      a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) < 0.01, `${a} vs ${b}`));
    close(rgbToLab(255, 255, 255), [100, 0, 0]);
    close(rgbToLab(0, 0, 0), [0, 0, 0]);
    close(rgbToLab(255, 0, 0), [53.2408, 80.0925, 67.2032]);
    close(rgbToLab(0, 0, 255), [32.297, 79.1875, -107.8602]);
  });

  it('computes CIEDE2000 exactly as the 34 test pairs of Sharma, Wu & Dalal (2005)', () => {
    const pairs: [number, number, number, number, number, number, number][] = [
      [50, 2.6772, -79.7751, 50, 0, -82.7485, 2.0425],
      [50, 3.1571, -77.2803, 50, 0, -82.7485, 2.8615],
      [50, 2.8361, -74.02, 50, 0, -82.7485, 3.4412],
      [50, -1.3802, -84.2814, 50, 0, -82.7485, 1.0],
      [50, -1.1848, -84.8006, 50, 0, -82.7485, 1.0],
      [50, -0.9009, -85.5211, 50, 0, -82.7485, 1.0],
      [50, 0, 0, 50, -1, 2, 2.3669],
      [50, -1, 2, 50, 0, 0, 2.3669],
      [50, 2.49, -0.001, 50, -2.49, 0.0009, 7.1792],
      [50, 2.49, -0.001, 50, -2.49, 0.001, 7.1792],
      [50, 2.49, -0.001, 50, -2.49, 0.0011, 7.2195],
      [50, 2.49, -0.001, 50, -2.49, 0.0012, 7.2195],
      [50, -0.001, 2.49, 50, 0.0009, -2.49, 4.8045],
      [50, -0.001, 2.49, 50, 0.001, -2.49, 4.8045],
      [50, -0.001, 2.49, 50, 0.0011, -2.49, 4.7461],
      [50, 2.5, 0, 50, 0, -2.5, 4.3065],
      [50, 2.5, 0, 73, 25, -18, 27.1492],
      [50, 2.5, 0, 61, -5, 29, 22.8977],
      [50, 2.5, 0, 56, -27, -3, 31.903],
      [50, 2.5, 0, 58, 24, 15, 19.4535],
      [50, 2.5, 0, 50, 3.1736, 0.5854, 1.0],
      [50, 2.5, 0, 50, 3.2972, 0, 1.0],
      [50, 2.5, 0, 50, 1.8634, 0.5757, 1.0],
      [50, 2.5, 0, 50, 3.2592, 0.335, 1.0],
      [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
      [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.263],
      [61.2901, 3.7196, -5.3901, 61.4292, 2.248, -4.962, 1.8731],
      [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
      [22.7233, 20.0904, -46.694, 23.0331, 14.973, -42.5619, 2.0373],
      [36.4612, 47.858, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
      [90.8027, -2.0831, 1.441, 91.1528, -1.6435, 0.0447, 1.4441],
      [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
      [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
      [2.0776, 0.0795, -1.135, 0.9033, -0.0636, -0.5514, 0.9082],
    ];
    for (const [L1, a1, b1, L2, a2, b2, want] of pairs) {
      const got = ciede2000([L1, a1, b1], [L2, a2, b2]);
      assert.ok(
        Math.abs(got - want) < 1e-4,
        `(${L1},${a1},${b1}) vs (${L2},${a2},${b2}): ${got.toFixed(4)} != ${want}`,
      );
      assert.ok(Math.abs(ciede2000([L2, a2, b2], [L1, a1, b1]) - want) < 1e-4, 'symmetric');
    }
  });
});

describe('color counting', () => {
  it('counts a crisp two-color design as 2, most covered first', () => {
    const p = extractPalette(raster(200, 200, (x) => (x < 120 ? RED : NAVY)));
    assert.equal(p.colors.length, 2);
    assert.deepEqual(
      p.colors.map((c) => c.hex),
      ['#C8102E', '#0033A0'],
    );
    assert.ok(Math.abs(p.colors[0]!.share - 0.6) < 0.02);
    assert.equal(p.tonalShare, 0);
  });

  it('does not count anti-aliased edge pixels (blends of two inks) as colors', () => {
    // A circle with a 2-pixel blended rim, on red.
    const img = raster(240, 240, (x, y) => {
      const d = Math.hypot(x - 120, y - 120) - 70;
      return d < -1 ? NAVY : d > 1 ? RED : mix(NAVY, RED, (d + 1) / 2);
    });
    assert.equal(extractPalette(img).colors.length, 2);
  });

  it('does not count noise: every pixel jittered by up to 14 levels per channel is still 2 colors', () => {
    const img = raster(240, 240, (x, y) => noisy(x + y < 240 ? RED : NAVY, 14));
    const p = extractPalette(img);
    assert.equal(p.colors.length, 2, p.colors.map((c) => c.hex).join());
    assert.equal(p.tonalShare, 0);
  });

  it('does not count transparent pixels or feathered rims, but counts the colors on them', () => {
    const img = raster(200, 200, (x, y) => {
      const d = Math.hypot(x - 100, y - 100) - 60;
      if (d > 2) return CLEAR;
      if (d > -2) return [...NAVY.slice(0, 3), Math.round((255 * (2 - d)) / 4)] as Rgba;
      return NAVY;
    });
    const p = extractPalette(img);
    assert.equal(p.colors.length, 1);
    assert.equal(p.hasTransparency, true);
    assert.ok(p.inkCoverage > 0.25 && p.inkCoverage < 0.32, `coverage ${p.inkCoverage}`);
  });

  it('counts many colors in a gradient and recognizes it as continuous tone', () => {
    const img = raster(400, 100, (x) => mix([255, 200, 0, 255], [20, 40, 200, 255], x / 399));
    const p = extractPalette(img);
    assert.ok(p.colors.length >= 6, `gradient counted ${p.colors.length}`);
    assert.ok(p.tonalShare > 0.9, `tonal ${p.tonalShare}`);
  });

  it('counts flat stripes one color each, with no continuous tone', () => {
    const colors: Rgba[] = [
      RED,
      NAVY,
      [255, 205, 0, 255],
      [0, 154, 68, 255],
      [0, 0, 0, 255],
      [255, 255, 255, 255],
      [130, 70, 175, 255],
      [255, 130, 0, 255],
      [0, 169, 224, 255],
    ];
    const p = extractPalette(raster(450, 100, (x) => colors[Math.floor(x / 50)]!));
    assert.equal(p.colors.length, 9);
    assert.equal(p.tonalShare, 0);
  });

  it('counts an ink that only appears in 1-pixel lines', () => {
    const yellow: Rgba = [255, 205, 0, 255];
    const p = extractPalette(raster(300, 300, (x, y) => (y % 20 === 0 ? yellow : x < 150 ? RED : NAVY)));
    assert.equal(p.colors.length, 3, p.colors.map((c) => `${c.hex}:${c.kind}`).join());
    assert.equal(p.colors.find((c) => c.kind === 'fine')?.hex, '#FFCD00');
  });

  it('ignores specks below the minimum share, and finds nothing in a fully transparent image', () => {
    const p = extractPalette(raster(300, 300, (x, y) => (x > 290 && y > 295 ? [0, 200, 0, 255] : RED)));
    assert.equal(p.colors.length, 1);
    const empty = extractPalette(raster(50, 50, () => CLEAR));
    assert.equal(empty.colors.length, 0);
    assert.equal(empty.inkCoverage, 0);
  });
});

describe('Pantone approximations', () => {
  it('matches colors to the nearest table entry by CIEDE2000, labeled as approximate', () => {
    const m = nearestPantone(hexToLab('#C8102E'))!;
    assert.equal(m.name, 'PANTONE 186 C');
    assert.ok(m.deltaE < 0.5);
    assert.equal(pantoneLabel(m), 'PANTONE 186 C (approximate)');
    assert.equal(nearestPantone(hexToLab('#0035A2'))?.name, 'PANTONE 286 C');
  });
  it('gives no match when nothing in the table is close', () => {
    assert.equal(nearestPantone(hexToLab('#FFFFFF')), null);
    assert.equal(nearestPantone(hexToLab('#7FFFD4')), null); // aquamarine
  });
  it('has a consistent table: unique names, valid hex', () => {
    assert.equal(new Set(PANTONE_TABLE.map((p) => p.name)).size, PANTONE_TABLE.length);
    for (const p of PANTONE_TABLE) assert.match(p.hex, /^#[0-9A-F]{6}$/);
  });
});

describe('print features', () => {
  it('computes dpi at the full front print size', () => {
    assert.equal(printSize(2400, 3000).dpi, 200);
    assert.equal(printSize(1200, 1500).dpi, 100);
    const wide = printSize(3000, 1000); // fits by width
    assert.equal(wide.widthIn, 12);
    assert.equal(wide.dpi, 250);
    assert.equal(printSize(1200, 1500).maxWidthIn, 6);
  });

  it('finds an opaque background box only when the border is one solid color', () => {
    const boxed = raster(100, 100, (x, y) => (x > 30 && x < 70 && y > 30 && y < 70 ? RED : [255, 255, 255, 255]));
    const p = extractPalette(boxed);
    assert.equal(detectBackgroundBox(boxed, p.colors)?.color.hex, '#FFFFFF');
    const onClear = raster(100, 100, (x, y) => (x > 30 && x < 70 && y > 30 && y < 70 ? RED : CLEAR));
    assert.equal(detectBackgroundBox(onClear, extractPalette(onClear).colors), null);
    const fullBleed = raster(100, 100, (x) => (x < 50 ? RED : NAVY));
    assert.equal(detectBackgroundBox(fullBleed, extractPalette(fullBleed).colors), null);
  });

  it('flags low-contrast colors only where ink meets the garment', () => {
    const p = extractPalette(raster(100, 100, (x) => (x < 50 ? [250, 250, 250, 255] : [30, 30, 30, 255])));
    const lc = lowContrastColors(p.colors, true, null);
    assert.deepEqual(lc.map((l) => [l.color.hex, l.garments]).sort(), [
      ['#1E1E1E', ['black']],
      ['#FAFAFA', ['white']],
    ]);
    assert.deepEqual(lowContrastColors(p.colors, false, null), []);
  });

  it('measures detail too fine to stitch: hairlines yes, bold shapes no', async () => {
    const bold = await decodeRaster(await F.crispLogo(), 512);
    const boldPalette = extractPalette(bold);
    assert.ok(fineDetailShare(bold, boldPalette.colors, false) < 0.05);
    const hair = await decodeRaster(await F.hairlines(), 512);
    assert.ok(fineDetailShare(hair, extractPalette(hair).colors, false) > 0.5);
  });
});

describe('analysis on a worker thread', () => {
  it('runs the pixel work on a worker thread (young generation ANALYSIS_THREAD_YOUNG_MB) and returns what the in-process analysis returns', async () => {
    const r = await decodeRaster(await F.threeColorLogo(), 512);
    const input: PixelInput = { ...r };
    const pool = new AnalysisPool({ size: 1 });
    try {
      const viaPool = await pool.run(input, 100);
      assert.deepEqual(viaPool, analyzePixels(input, 100));
      assert.equal(pool.stats.completedOnWorkers, 1);
      assert.equal(pool.stats.completedInline, 0);
      assert.ok(pool.stats.workerThreadIds.length === 1 && pool.stats.workerThreadIds[0] !== threadId);
      // the heap limit changes no result (the equality above), only what the thread keeps resident
      assert.equal(ANALYSIS_THREAD_YOUNG_MB, 4);
      assert.deepEqual(
        pool.stats.resourceLimits.map((l) => l.maxYoungGenerationSizeMb),
        [ANALYSIS_THREAD_YOUNG_MB],
      );
    } finally {
      await pool.close();
    }
  });

  it('refuses work beyond its queue limit instead of queueing without bound', async () => {
    const r = await decodeRaster(await F.crispLogo(600, 750), 512);
    const pool = new AnalysisPool({ size: 1, maxQueue: 1 });
    try {
      const first = pool.run({ ...r }, 50); // dispatched to the worker at once
      const second = pool.run({ ...r }, 50); // waits in the queue
      await assert.rejects(pool.run({ ...r }, 50), (e: Error) => e.name === 'WorkerPoolBusyError');
      await Promise.all([first, second]);
      assert.equal(pool.stats.completedOnWorkers, 2);
    } finally {
      await pool.close();
    }
  });

  it('ends a thread idle for idleMs (its isolate given back) and starts another for the next task', async () => {
    const r = await decodeRaster(await F.crispLogo(600, 750), 512);
    const pool = new AnalysisPool({ size: 1, idleMs: 50 });
    try {
      const first = await pool.run({ ...r }, 50);
      // still there while it is busy or just finished: a second task at once takes the same thread
      assert.deepEqual(await pool.run({ ...r }, 50), first);
      assert.equal(pool.stats.workerThreadIds.length, 1);
      await new Promise((res) => setTimeout(res, 300));
      assert.deepEqual(await pool.run({ ...r }, 50), first, 'no task is lost to the retirement');
      assert.equal(pool.stats.completedOnWorkers, 3);
      assert.equal(pool.stats.workerThreadIds.length, 2, 'the idle thread was ended and a new one started');
    } finally {
      await pool.close();
    }
  });

  it('abandons an analysis that overruns its time limit and keeps working afterwards', async () => {
    const r = await decodeRaster(await F.gradientPhoto(), 512);
    const pool = new AnalysisPool({ size: 1, taskTimeoutMs: 1 });
    try {
      await assert.rejects(pool.run({ ...r }, 50), /longer than 1 ms/);
    } finally {
      await pool.close();
    }
    const ok = new AnalysisPool({ size: 1 });
    try {
      assert.equal((await ok.run({ ...r }, 50)).result.recommendation.technique, 'dtg');
    } finally {
      await ok.close();
    }
  });
});
