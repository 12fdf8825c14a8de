import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  decodeRaster,
  decodesOnce,
  MAX_INPUT_PIXELS,
  ONE_DECODE_MAX_PIXELS,
  prepareDesignLevels,
  prepareFromOneDecode,
} from '../../lib/images';
import { ANALYSIS_MAX_SIDE } from '../../lib/analysis';
import * as F from '../helpers/fixtures';

const upright = async (bytes: Buffer) => {
  const meta = await sharp(bytes).metadata();
  return { meta, src: { width: meta.width!, height: meta.height! } };
};

describe('one decode for an upload (lib/images/one-decode.ts)', () => {
  // every kind of PNG the fixtures make: RGBA logos large and small, RGB without alpha, palette, anti-aliased
  // edges, near-opaque and soft shadows (translucent alpha)
  const pngs: [string, () => Promise<Buffer>][] = [
    ['crisp logo 2400x3000', () => F.crispLogo()],
    ['anti-aliased logo', () => F.antialiasedLogo()],
    ['soft shadow', () => F.softShadowLogo()],
    ['almost opaque', () => F.almostOpaque()],
    ['hairlines', () => F.hairlines()],
    ['opaque white box (RGB)', () => F.opaqueWhiteBox(1200, 1500)],
    ['two-tone gradient (RGB)', () => F.twoToneGradient(1200, 1500)],
    ['noisy logo 480x600', () => F.noisyLogo()],
    ['low resolution (no level)', () => F.lowRes()],
    [
      'palette PNG',
      async () =>
        sharp(await F.threeColorLogo(1200, 1500))
          .png({ palette: true })
          .toBuffer(),
    ],
  ];

  for (const [name, make] of pngs)
    it(`gives exactly the levels and analysis raster of the separate pipelines: ${name}`, async () => {
      const bytes = await make();
      const { meta, src } = await upright(bytes);
      assert.ok(decodesOnce(meta), `${name} should decode once`);
      const once = await prepareFromOneDecode(bytes, src, meta.hasAlpha === true);
      const levels = await prepareDesignLevels(bytes, src, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' });
      assert.deepEqual([...(once.prepared?.levels.keys() ?? [])], [...(levels?.levels.keys() ?? [])]);
      for (const [k, l] of levels?.levels ?? []) {
        const o = once.prepared!.levels.get(k)!;
        assert.deepEqual([o.width, o.height], [l.width, l.height]);
        assert.ok(o.data.equals(l.data), `level ${k} pixels differ`);
      }
      const raster = await decodeRaster(bytes, ANALYSIS_MAX_SIDE);
      const r = await once.raster(ANALYSIS_MAX_SIDE);
      assert.deepEqual(
        [r.width, r.height, r.sourceWidth, r.sourceHeight],
        [raster.width, raster.height, raster.sourceWidth, raster.sourceHeight],
      );
      assert.ok(Buffer.from(r.data).equals(Buffer.from(raster.data)), 'analysis raster differs');
      assert.equal(r.alphaPlane === undefined, raster.alphaPlane === undefined);
      if (raster.alphaPlane) assert.ok(r.alphaPlane!.equals(raster.alphaPlane), 'alpha plane differs');
    });

  it('is not used where a pipeline from the bytes gives other pixels or the whole image is too large', async () => {
    const logo = await F.crispLogo(600, 750);
    const cases: [string, Buffer][] = [
      ['JPEG (shrink-on-load)', await F.jpegLogoOnWhite()],
      ['WebP', await F.asFormat(logo, 'webp')],
      ['16-bit PNG', await sharp(logo).png().toColourspace('rgb16').toBuffer()],
      ['gray PNG', await sharp(logo).toColourspace('b-w').png().toBuffer()],
      ['PNG with an ICC profile', await sharp(logo).withIccProfile('p3').png().toBuffer()],
      ['PNG rotated by EXIF', await sharp(logo).withMetadata({ orientation: 6 }).png().toBuffer()],
    ];
    for (const [name, bytes] of cases) assert.equal(decodesOnce(await sharp(bytes).metadata()), false, name);
    const big = await sharp(await F.crispLogo(600, 750)).metadata();
    assert.equal(decodesOnce({ ...big, width: 4000, height: ONE_DECODE_MAX_PIXELS / 4000 + 1 }), false, 'too large');
    assert.equal(decodesOnce({ ...big, width: 4000, height: ONE_DECODE_MAX_PIXELS / 4000 }), true);
  });

  it('refuses truncated data as the strict pipelines do', async () => {
    const bytes = await F.truncatedPng();
    const { meta, src } = await upright(bytes);
    await assert.rejects(prepareFromOneDecode(bytes, src, meta.hasAlpha === true));
  });
});
