import assert from 'node:assert/strict';
import sharp from 'sharp';
import { threadId } from 'node:worker_threads';
import {
  decodeBase64Image,
  decodeImageJson,
  IMAGE_PLACEHOLDER,
  imageJsonPool,
  INLINE_JSON_BYTES,
  parseImageJson,
  decodeRaster,
  decoding,
  describeUnsupported,
  detectFormat,
  ImageError,
  inspectImage,
  makeThumbnail,
  MAX_INPUT_PIXELS,
  openImage,
  readDimensions,
} from '../../lib/images';
import { alphaStats } from '../../lib/analysis/alpha';
import * as F from '../helpers/fixtures';

function throwsImageError(fn: () => unknown, reason: string, message?: RegExp) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ImageError, `expected ImageError, got ${e}`);
    assert.equal(e.reason, reason, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}
async function rejectsImageError(p: Promise<unknown>, reason: string, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ImageError, `expected ImageError, got ${e}`);
    assert.equal(e.reason, reason, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const solid = (w: number, h: number, alpha = 1) =>
  sharp({ create: { width: w, height: h, channels: 4, background: { r: 200, g: 16, b: 46, alpha } } });

describe('image format detection (magic bytes only)', () => {
  it('recognizes PNG, JPEG, WebP and GIF', async () => {
    const base = solid(10, 8);
    assert.equal(detectFormat(await base.clone().png().toBuffer())?.mimeType, 'image/png');
    assert.equal(detectFormat(await base.clone().jpeg().toBuffer())?.mimeType, 'image/jpeg');
    assert.equal(detectFormat(await base.clone().webp().toBuffer())?.mimeType, 'image/webp');
    assert.equal(detectFormat(await base.clone().gif().toBuffer())?.mimeType, 'image/gif');
    assert.equal(detectFormat(await base.clone().jpeg().toBuffer())?.ext, 'jpg');
  });

  it('names what it refuses: SVG (in its various openings), HTML, PDF, BMP, TIFF, HEIC, AVIF, ZIP', () => {
    const cases: [string | Buffer, string][] = [
      ['<svg xmlns="http://www.w3.org/2000/svg"/>', 'SVG'],
      ['<?xml version="1.0"?>\n<!-- x -->\n<svg/>', 'SVG'],
      ['\uFEFF  <svg/>', 'SVG'],
      ['<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x"><svg/>', 'SVG'],
      ['<!doctype html><html></html>', 'HTML'],
      ['%PDF-1.4', 'PDF'],
      [Buffer.concat([Buffer.from('BM'), Buffer.alloc(20)]), 'BMP'],
      [Buffer.from([0x49, 0x49, 0x2a, 0x00, 1, 2]), 'TIFF'],
      [Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(8)]), 'HEIC'],
      [Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypavif'), Buffer.alloc(8)]), 'AVIF'],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]), 'ZIP'],
      [Buffer.alloc(0), 'empty data'],
      [Buffer.from([1, 2, 3, 4, 5]), 'an unrecognized format'],
    ];
    for (const [bytes, name] of cases) {
      const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
      assert.equal(detectFormat(buf), null, name);
      assert.equal(describeUnsupported(buf), name);
    }
  });
});

describe('header dimensions (no decoding)', () => {
  it('reads width and height of every accepted format, including WebP lossy, lossless and extended', async () => {
    const variants: [string, Buffer][] = [
      ['png', await solid(123, 45).png().toBuffer()],
      ['jpeg', await solid(123, 45).jpeg().toBuffer()],
      ['jpeg progressive', await solid(123, 45).jpeg({ progressive: true }).toBuffer()],
      [
        'jpeg with EXIF',
        await solid(123, 45)
          .jpeg()
          .withMetadata({ exif: { IFD0: { Copyright: 'test' } } })
          .toBuffer(),
      ],
      ['gif', await solid(123, 45).gif().toBuffer()],
      ['webp lossy (VP8)', await solid(123, 45).removeAlpha().webp({ lossless: false }).toBuffer()],
      ['webp lossless (VP8L)', await solid(123, 45).webp({ lossless: true }).toBuffer()],
      ['webp with alpha (VP8X)', await solid(123, 45, 0.5).webp({ lossless: false }).toBuffer()],
    ];
    for (const [name, buf] of variants) {
      const f = detectFormat(buf);
      assert.ok(f, name);
      assert.deepEqual(readDimensions(buf, f.format), { width: 123, height: 45 }, name);
    }
  });

  it('refuses truncated headers', async () => {
    const png = await solid(20, 20).png().toBuffer();
    throwsImageError(() => readDimensions(png.subarray(0, 20), 'png'), 'corrupt', /PNG header is truncated/);
    throwsImageError(() => readDimensions(Buffer.from('GIF89a\x01'), 'gif'), 'corrupt');
    const jpeg = await solid(20, 20).jpeg().toBuffer();
    throwsImageError(() => readDimensions(jpeg.subarray(0, 10), 'jpeg'), 'corrupt', /JPEG/);
    throwsImageError(() => readDimensions(Buffer.from('RIFF\0\0\0\0WEBPVP8 '), 'webp'), 'corrupt');
  });
});

describe('inspectImage', () => {
  it('accepts a normal image and reports its format and size', async () => {
    const buf = await F.crispLogo(600, 750);
    const info = inspectImage(buf);
    assert.equal(info.mimeType, 'image/png');
    assert.deepEqual([info.width, info.height, info.bytes], [600, 750, buf.length]);
  });

  it('refuses empty, oversized and unsupported data', () => {
    throwsImageError(() => inspectImage(Buffer.alloc(0)), 'empty');
    throwsImageError(() => inspectImage(Buffer.alloc(2000, 1), { maxBytes: 1000 }), 'too_large', /maximum/);
    throwsImageError(() => inspectImage(F.SVG), 'unsupported_format', /SVG images are not accepted/);
  });

  it('refuses pixel bombs from the header, in every format', async () => {
    throwsImageError(() => inspectImage(Buffer.from('')), 'empty');
    throwsImageError(() => inspectImage(F.gifHeaderBomb()), 'too_many_pixels', /65535x65535/);
    const bomb = await F.decompressionBomb(30000);
    throwsImageError(() => inspectImage(bomb), 'too_many_pixels', /30000x30000 pixels/);
    // A real JPEG whose frame header is patched to claim 60000x60000.
    const jpeg = Buffer.from(await solid(16, 16).jpeg().toBuffer());
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(60000, sof + 5);
    jpeg.writeUInt16BE(60000, sof + 7);
    throwsImageError(() => inspectImage(jpeg), 'too_many_pixels', /60000x60000/);
    // A WebP whose extended header claims 16384x16384 (268 MP).
    const webp = Buffer.from(await solid(16, 16, 0.5).webp().toBuffer());
    webp.writeUIntLE(16383, 24, 3);
    webp.writeUIntLE(16383, 27, 3);
    throwsImageError(() => inspectImage(webp), 'too_many_pixels', /16384x16384/);
    // Long thin strips pass the pixel count but not the side limit.
    const strip = Buffer.from(await solid(16, 16).png().toBuffer());
    strip.writeUInt32BE(20000, 16);
    strip.writeUInt32BE(1, 20);
    throwsImageError(() => inspectImage(strip), 'too_many_pixels', /px per side/);
  });
});

describe('safe decoding', () => {
  it('refuses a bomb inside libvips too (limitInputPixels), should the header check ever be skipped', async () => {
    const bomb = await F.decompressionBomb(30000);
    const t0 = Date.now();
    await rejectsImageError(
      decoding(() => openImage(bomb).raw().toBuffer()),
      'too_many_pixels',
    );
    assert.ok(Date.now() - t0 < 2000, 'refused before decoding');
    assert.ok(30000 * 30000 > MAX_INPUT_PIXELS);
  });

  it('turns truncated and damaged pixel data into ImageError corrupt', async () => {
    await rejectsImageError(makeThumbnail(await F.truncatedPng()), 'corrupt', /truncated or corrupt/);
    await rejectsImageError(makeThumbnail(await F.corruptJpeg()), 'corrupt');
    await rejectsImageError(makeThumbnail(F.pngMagicGarbage()), 'corrupt');
  });

  it('makes a small WebP thumbnail that keeps transparency and proportions', async () => {
    const t = await makeThumbnail(await F.crispLogo());
    assert.equal(t.mimeType, 'image/webp');
    assert.deepEqual([t.width, t.height], [320, 400]);
    const meta = await sharp(t.body).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.hasAlpha, true);
    const small = await makeThumbnail(await F.crispLogo(100, 125));
    assert.deepEqual([small.width, small.height], [100, 125], 'never enlarged');
  });

  it('decodes any color space to an 8-bit sRGB+alpha raster, with an 8-bit alpha plane at full resolution', async () => {
    const red = { r: 200, g: 16, b: 46 };
    const cmyk = await sharp({ create: { width: 40, height: 40, channels: 3, background: red } })
      .jpeg()
      .toColorspace('cmyk')
      .toBuffer();
    const rc = await decodeRaster(cmyk, 512);
    assert.equal(rc.data.length, 40 * 40 * 4);
    assert.ok(
      Math.abs(rc.data[0]! - 200) < 12 && rc.data[1]! < 30 && Math.abs(rc.data[2]! - 46) < 25,
      `cmyk -> ${rc.data.slice(0, 4)}`,
    );
    assert.equal(rc.alphaPlane, undefined);

    const ramp = Buffer.alloc(16 * 16 * 4);
    for (let i = 0; i < 256; i++) ramp.set([200, 16, 46, i], i * 4);
    const raw = { raw: { width: 16, height: 16, channels: 4 as const } };
    for (const [name, buf] of [
      ['16-bit RGBA', await sharp(ramp, raw).toColorspace('rgb16').png().toBuffer()],
      ['gray + alpha', await sharp(ramp, raw).toColorspace('b-w').png().toBuffer()],
      ['palette PNG', await sharp(ramp, raw).png({ palette: true }).toBuffer()],
    ] as const) {
      const r = await decodeRaster(buf, 512);
      assert.equal(r.data.length, 16 * 16 * 4, name);
      const a = alphaStats(r.alphaPlane);
      assert.equal(a.minAlpha, 0, name);
      assert.ok(Math.abs(a.solidShare - 6 / 256) < 0.01, `${name} solid ${a.solidShare}`);
      assert.ok(Math.abs(a.clearShare - 8 / 256) < 0.01, `${name} clear ${a.clearShare}`);
    }
  });

  it('downsamples large images for analysis and reports the source size', async () => {
    const r = await decodeRaster(await F.crispLogo(), 512);
    assert.deepEqual([r.width, r.height, r.sourceWidth, r.sourceHeight], [410, 512, 2400, 3000]);
    // Five transparent pixels among 800,000 are found, although downsampling would average them away.
    const almost = await decodeRaster(await F.almostOpaque(), 64);
    assert.equal(almost.alphaPlane?.length, 800 * 1000, 'full resolution');
    const a = alphaStats(almost.alphaPlane);
    assert.equal(a.minAlpha, 0);
    assert.equal(a.clearShare, 5 / (800 * 1000));
  });
});

describe('base64 image data', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  it('decodes data URLs, bare base64, URL-safe base64 and wrapped lines', () => {
    assert.deepEqual(decodeBase64Image(`data:image/png;base64,${png.toString('base64')}`), png);
    assert.deepEqual(decodeBase64Image(`DATA:image/png;charset=utf-8;BASE64,${png.toString('base64')}`), png);
    assert.deepEqual(decodeBase64Image(png.toString('base64')), png);
    assert.deepEqual(decodeBase64Image(png.toString('base64url')), png);
    const wrapped = png.toString('base64').replace(/(.{4})/g, '$1\n');
    assert.deepEqual(decodeBase64Image(wrapped), png);
  });

  it('refuses what is not base64, and data URLs that are not base64-encoded', () => {
    throwsImageError(() => decodeBase64Image('not*base64!'), 'invalid_base64');
    throwsImageError(() => decodeBase64Image('data:image/png,%89PNG'), 'invalid_base64', /base64-encoded/);
    throwsImageError(() => decodeBase64Image('data:image/png;base64'), 'invalid_base64', /Malformed data URL/);
    throwsImageError(() => decodeBase64Image('data:image/png;base64,'), 'empty');
    throwsImageError(() => decodeBase64Image('QUJD=A'), 'invalid_base64');
  });

  it('refuses an oversized payload from its length, before decoding it', () => {
    const huge = 'A'.repeat(20 * 1024 * 1024);
    throwsImageError(() => decodeBase64Image(huge), 'too_large', /15 MB; the maximum is 10 MB/);
    // Invalid base64 at the very end: a decoder that looked at the characters first would say invalid_base64.
    throwsImageError(() => decodeBase64Image(`${huge}*`), 'too_large');
    throwsImageError(() => decodeBase64Image('A'.repeat(400), 100), 'too_large');
  });
});

describe('JSON bodies carrying a base64 image', () => {
  const raw = (v: unknown) => Buffer.from(JSON.stringify(v));
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 8, 7]);

  it('parses the body, decodes the image field and leaves a placeholder string in its place', () => {
    const r = parseImageJson({ raw: raw({ imageData: png.toString('base64'), quantity: 5 }), field: 'imageData' });
    assert.equal(r.kind, 'ok');
    if (r.kind !== 'ok') return;
    assert.deepEqual(r.body, { imageData: IMAGE_PLACEHOLDER, quantity: 5 });
    assert.deepEqual(Buffer.from(r.image!), png);
    assert.equal(r.imageError, undefined);
  });

  it('reports malformed JSON, leaves non-string fields for the schema, and reports bad base64 as an image problem', () => {
    assert.deepEqual(parseImageJson({ raw: Buffer.from('{"imageData": '), field: 'imageData' }), {
      kind: 'malformed_json',
    });
    const notString = parseImageJson({ raw: raw({ imageData: 42 }), field: 'imageData' });
    assert.deepEqual(notString, { kind: 'ok', body: { imageData: 42 } });
    const bad = parseImageJson({ raw: raw({ imageData: '%%%' }), field: 'imageData' });
    assert.equal(bad.kind === 'ok' && bad.imageError?.reason, 'invalid_base64');
    const big = parseImageJson({ raw: raw({ imageData: 'A'.repeat(2000) }), field: 'imageData', maxBytes: 100 });
    assert.equal(big.kind === 'ok' && big.imageError?.reason, 'too_large');
    assert.deepEqual(parseImageJson({ raw: raw([1, 2]), field: 'imageData' }), { kind: 'ok', body: [1, 2] });
  });

  it('decodes large bodies on a worker thread and hands the bytes back intact', async () => {
    const image = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < image.length; i++) image[i] = (i * 131) & 255;
    const body = raw({ imageData: `data:image/png;base64,${image.toString('base64')}` });
    assert.ok(body.length > INLINE_JSON_BYTES);
    const before = imageJsonPool().stats.completedOnWorkers;
    const r = await decodeImageJson(body, 'imageData');
    assert.equal(r.kind, 'ok');
    assert.ok(r.kind === 'ok' && r.image && Buffer.from(r.image).equals(image));
    assert.equal(imageJsonPool().stats.completedOnWorkers, before + 1);
    assert.ok(!imageJsonPool().stats.workerThreadIds.includes(threadId));
    // Small bodies are parsed inline: no worker hop.
    await decodeImageJson(raw({ imageData: png.toString('base64') }), 'imageData');
    assert.equal(imageJsonPool().stats.completedOnWorkers, before + 1);
  });
});
