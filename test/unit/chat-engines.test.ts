// The design chat's engines: reading a prompt, the local renderer (deterministic, the prompt's words as type, its
// colours as inks, a motif, fast), the print-asset engine (flat background removed from the edges only, trimmed,
// long side at least 2048/4096, upscaled in bands that give the same pixels as one resize, 300 DPI in the file) and
// the mockup plan.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { graphicSvg, renderLocalGraphic } from '../../lib/chat/local-renderer';
import { DEFAULT_ZONES, leftChestFrom, planMockups } from '../../lib/chat/mockup-plan';
import { EmptyGraphicError, makePrintAsset, upscaleInBands } from '../../lib/chat/print-asset';
import { readPrompt } from '../../lib/chat/prompt';

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function rgba(png: Buffer): Promise<Raw> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const hexRgb = (hex: string) => {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255] as const;
};

/** Share of opaque pixels within `tol` (largest channel difference) of a colour. */
function share(r: Raw, hex: string, tol = 12, region?: { y0: number; y1: number }): number {
  const [cr, cg, cb] = hexRgb(hex);
  let hit = 0;
  let total = 0;
  const y0 = region?.y0 ?? 0;
  const y1 = region?.y1 ?? r.height;
  for (let y = y0; y < y1; y++)
    for (let x = 0; x < r.width; x++) {
      const o = (y * r.width + x) * 4;
      total++;
      if (r.data[o + 3]! < 200) continue;
      if (Math.max(Math.abs(r.data[o]! - cr), Math.abs(r.data[o + 1]! - cg), Math.abs(r.data[o + 2]! - cb)) <= tol)
        hit++;
    }
  return hit / total;
}

const alphaAt = (r: Raw, x: number, y: number) => r.data[(y * r.width + x) * 4 + 3]!;

describe('chat: reading a prompt', () => {
  it('finds the named colours in order, multi-word names once, and the key words without filler', () => {
    const r = readPrompt('A retro sunset surf club logo in navy blue and orange, with a touch of blue');
    assert.deepEqual(
      r.colors.map((c) => c.name),
      ['navy blue', 'orange', 'blue'],
    );
    assert.deepEqual(r.keyWords, ['retro', 'sunset', 'surf', 'club']);
    assert.equal(r.motif, 'sun');
  });

  it('picks a motif from the words, a badge when none fits, and a stable seed', () => {
    assert.equal(readPrompt('mountain adventure crew').motif, 'mountain');
    assert.equal(readPrompt('ocean waves for the sailing team').motif, 'wave');
    assert.equal(readPrompt('Coffee lovers unite').motif, 'badge');
    assert.equal(readPrompt('Coffee lovers unite').seed, readPrompt('coffee lovers unite ').seed);
    assert.notEqual(readPrompt('Coffee lovers unite').seed, readPrompt('Tea lovers unite').seed);
  });

  it('reads no key words from an edit request that only names a colour', () => {
    const r = readPrompt('make it blue please');
    assert.deepEqual(r.keyWords, []);
    assert.deepEqual(
      r.colors.map((c) => c.name),
      ['blue'],
    );
  });
});

describe('chat: local renderer', function () {
  this.timeout(30_000);
  const PROMPT = 'A retro sunset surf club logo in orange and purple';

  it('is deterministic for a prompt and differs between prompts', async () => {
    const a = await renderLocalGraphic(PROMPT);
    const b = await renderLocalGraphic(PROMPT);
    const c = await renderLocalGraphic('A retro sunset surf club logo in green and navy');
    assert.ok(a.png.equals(b.png), 'same prompt, same bytes');
    assert.ok(!a.png.equals(c.png));
    assert.equal(a.width, 1024);
    assert.equal((await sharp(a.png).metadata()).format, 'png');
  });

  it('uses the colours the prompt names as its inks, on a flat background', async () => {
    const g = await renderLocalGraphic(PROMPT);
    const r = await rgba(g.png);
    assert.equal(g.background, '#ffffff');
    assert.ok(share(r, '#f07a1a') > 0.02, `orange covers ${share(r, '#f07a1a')}`);
    assert.ok(share(r, '#7b33b5') > 0.01, `purple covers ${share(r, '#7b33b5')}`);
    for (const [x, y] of [
      [0, 0],
      [1023, 0],
      [0, 1023],
      [1023, 1023],
    ] as const) {
      const o = (y * r.width + x) * 4;
      assert.deepEqual([...r.data.subarray(o, o + 3)], [255, 255, 255]);
    }
  });

  it('sets the key words as type that is actually drawn (fonts present)', async () => {
    const { svg } = graphicSvg(PROMPT);
    assert.match(svg, />RETRO SUNSET</);
    assert.match(svg, />SURF CLUB</);
    const withText = await rgba(await sharp(Buffer.from(svg)).png().toBuffer());
    const noText = await rgba(
      await sharp(Buffer.from(svg.replace(/<text[^>]*>[^<]*<\/text>/g, '')))
        .png()
        .toBuffer(),
    );
    // the type band: enough pixels change when the words are drawn
    let changed = 0;
    for (let y = 600; y < 900; y++)
      for (let x = 0; x < 1024; x++) {
        const o = (y * 1024 + x) * 4;
        if (Math.abs(withText.data[o]! - noText.data[o]!) > 40) changed++;
      }
    assert.ok(changed > 30_000, `${changed} pixels of type`);
  });

  it('keeps the design visible when the prompt asks for white ink', async () => {
    const g = await renderLocalGraphic('white lightning bolt for the night shift');
    assert.notEqual(g.background, '#ffffff');
    const r = await rgba(g.png);
    assert.ok(share(r, '#ffffff') > 0.01);
  });

  it('edits the previous graphic when the prompt only names a colour ("make it blue")', async () => {
    const previous = (await renderLocalGraphic('mountain adventure crew in red')).png;
    const edited = await renderLocalGraphic('make it blue', { previous });
    assert.ok(edited.edited);
    const r = await rgba(edited.png);
    let blue = 0;
    let red = 0;
    for (let i = 0; i < r.data.length; i += 4) {
      const [R, G, B] = [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!];
      if (B > R + 40 && B > G + 20) blue++;
      if (R > B + 60 && R > G + 60) red++;
    }
    assert.ok(blue > 20_000, `${blue} blue pixels`);
    assert.ok(red < 100, `${red} red pixels left`);
  });

  it('renders in well under a second', async () => {
    await renderLocalGraphic('warm up the font cache');
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await renderLocalGraphic(`${PROMPT} number ${i}`);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    assert.ok(times[2]! < 500, `median ${times[2]!.toFixed(0)} ms`);
  });
});

describe('chat: print asset', function () {
  this.timeout(60_000);

  /** A black ring (white inside and outside) with an anti-aliased edge, on a 1000x800 white canvas. */
  const ringOnWhite = () =>
    sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="800">
        <rect width="1000" height="800" fill="#ffffff"/>
        <circle cx="500" cy="400" r="200" fill="none" stroke="#101010" stroke-width="60"/>
        <rect x="420" y="380" width="160" height="40" fill="#d7262e"/>
      </svg>`),
    )
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();

  it('removes a flat background from the edges only, trims, upscales to 2048 and writes 300 DPI', async () => {
    const asset = await makePrintAsset(await ringOnWhite(), { longSide: 2048, dpi: 300 });
    assert.equal(asset.removedBackground, '#ffffff');
    assert.ok(asset.upscaled);
    // the ring spans 460 px (r 200 + half the stroke), square: trimmed to it and scaled to 2048
    assert.ok(Math.abs(asset.trim.width - 460) <= 2 && Math.abs(asset.trim.height - 460) <= 2, JSON.stringify(asset));
    assert.equal(Math.max(asset.width, asset.height), 2048);
    const meta = await sharp(asset.png).metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.density, 300);
    assert.ok(meta.hasAlpha);
    assert.equal(meta.width, asset.width);
    const r = await rgba(asset.png);
    assert.equal(alphaAt(r, 0, 0), 0, 'corner outside the ring is transparent');
    assert.equal(alphaAt(r, r.width - 1, r.height - 1), 0);
    // inside the ring the white is enclosed: it is artwork, not background
    const inside = ((Math.round(r.height * 0.25) * r.width + Math.round(r.width / 2)) * 4) as number;
    assert.equal(r.data[inside + 3], 255);
    assert.deepEqual([...r.data.subarray(inside, inside + 3)], [255, 255, 255]);
    // bicubic interpolation and the fringe leave a soft edge: many partial alphas, not a staircase
    let partial = 0;
    for (let i = 3; i < r.data.length; i += 4) if (r.data[i]! > 0 && r.data[i]! < 255) partial++;
    assert.ok(partial > 2000, `${partial} partially transparent pixels`);
  });

  it('makes 4096 px for the 4k model and never shrinks a larger graphic', async () => {
    const ring = await ringOnWhite();
    const big = await makePrintAsset(ring, { longSide: 4096, dpi: 300 });
    assert.equal(Math.max(big.width, big.height), 4096);
    const large = await sharp({ create: { width: 3000, height: 2600, channels: 3, background: '#ffffff' } })
      .composite([
        { input: { create: { width: 2500, height: 2000, channels: 3, background: '#2360d8' } }, left: 250, top: 300 },
      ])
      .png()
      .toBuffer();
    const kept = await makePrintAsset(large, { longSide: 2048, dpi: 300 });
    assert.equal(kept.upscaled, false);
    assert.deepEqual([kept.width, kept.height], [2500, 2000]);
  });

  it('keeps a graphic that already has transparency as it is (trimmed), and a photo-like background too', async () => {
    const transparent = await sharp({
      create: { width: 800, height: 800, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        { input: { create: { width: 300, height: 200, channels: 4, background: '#f07a1a' } }, left: 100, top: 150 },
      ])
      .png()
      .toBuffer();
    const a = await makePrintAsset(transparent, { longSide: 2048, dpi: 300 });
    assert.equal(a.removedBackground, null);
    assert.deepEqual(a.trim, { left: 100, top: 150, width: 300, height: 200 });
    assert.deepEqual([a.width, a.height], [2048, 1365]);

    // a gradient behind the artwork is not a flat background: nothing is removed
    const raw = Buffer.alloc(600 * 600 * 3);
    for (let y = 0; y < 600; y++)
      for (let x = 0; x < 600; x++)
        raw.set([Math.round((x / 599) * 255), 80, Math.round((y / 599) * 255)], (y * 600 + x) * 3);
    const photo = await sharp(raw, { raw: { width: 600, height: 600, channels: 3 } })
      .png()
      .toBuffer();
    const p = await makePrintAsset(photo, { longSide: 2048, dpi: 300 });
    assert.equal(p.removedBackground, null);
    const r = await rgba(p.png);
    assert.equal(alphaAt(r, 0, 0), 255);
  });

  it('upscales in bands of rows that join into exactly the pixels of one resize', async () => {
    const src = await rgba(await ringOnWhite());
    const box = { left: 269, top: 167, width: 463, height: 471 };
    const [w, h] = [2013, 2048]; // odd sizes: bands of unequal height
    const whole = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 4 } })
      .extract(box)
      .resize(w, h, { kernel: 'lanczos3', fit: 'fill' }) // what the print asset did in one pipeline
      .raw()
      .toBuffer();
    for (const bands of [1, 2, 3, 4, 7]) {
      const banded = await upscaleInBands(src, box, w, h, bands);
      assert.equal(banded.length, w * h * 4);
      assert.ok(banded.equals(whole), `${bands} bands`);
    }
  });

  it('refuses a graphic that is nothing but background', async () => {
    const blank = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    await assert.rejects(makePrintAsset(blank, { longSide: 2048, dpi: 300 }), EmptyGraphicError);
  });

  it("prints the local renderer's graphic without its background", async () => {
    const g = await renderLocalGraphic('neon lightning bolt energy drink in yellow and black');
    const asset = await makePrintAsset(g.png, { longSide: 2048, dpi: 300 });
    assert.equal(asset.removedBackground, '#ffffff');
    const r = await rgba(asset.png);
    assert.equal(alphaAt(r, 0, 0), 0);
    assert.ok(share(r, '#f7d417') > 0.02);
  });
});

describe('chat: mockup plan', () => {
  it('two blanks or more: the first two, front; one blank: full front and left chest; none: nothing', () => {
    assert.deepEqual(planMockups([]), []);
    assert.deepEqual(planMockups(['u1']), [
      { garmentUrl: 'u1', placement: 'front' },
      { garmentUrl: 'u1', placement: 'left-chest' },
    ]);
    assert.deepEqual(planMockups(['u1', 'u2', 'u3']), [
      { garmentUrl: 'u1', placement: 'front' },
      { garmentUrl: 'u2', placement: 'front' },
    ]);
  });

  it('default zones are centred and inside the image; a derived left chest sits in the main zone', () => {
    const f = DEFAULT_ZONES.front;
    assert.ok(Math.abs(f.x + f.width / 2 - 0.5) < 1e-9);
    const lc = DEFAULT_ZONES['left-chest'];
    assert.ok(lc.x > 0.5 && lc.x + lc.width < 1, 'wearer’s left chest is on the right of a front view');
    const d = leftChestFrom({ x: 0.3, y: 0.2, width: 0.4, height: 0.5 });
    assert.ok(d.x >= 0.3 && d.x + d.width <= 0.7 + 1e-9 && d.y === 0.2 && d.height <= 0.5);
  });
});
