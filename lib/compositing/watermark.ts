// The TEST watermark of test-mode mockups (docs/test-mode.md): the word TEST in block letters, semi-transparent red
// on a faint white halo, once across the image along its rising diagonal. Drawn from strokes (no font: the same
// pixels on every machine), rendered by libvips' SVG loader and blended onto the finished JPEG.
import sharp from 'sharp';
import { jpegOf } from './composite';

/** The letters in a 300 x 100 box (60 wide, 20 apart), as stroke paths. */
const LETTERS = [
  'M0 0H60M30 0V100', // T
  'M60 0H0V100H60M0 50H45', // E
  'M60 0H0V50H60V100H0', // S
  'M0 0H60M30 0V100', // T
];
const WORD_WIDTH = 300;
const WORD_HEIGHT = 100;
/** The word spans this fraction of the image diagonal. */
const SPAN = 0.6;
export const WATERMARK_RGB = [230, 0, 0] as const;
export const WATERMARK_OPACITY = 0.7;

/** The overlay for an image of `width` x `height` pixels, as an SVG document of that size. */
export function testWatermarkSvg(width: number, height: number): string {
  const diagonal = Math.hypot(width, height);
  const scale = (SPAN * diagonal) / WORD_WIDTH;
  const angle = (-Math.atan2(height, width) * 180) / Math.PI;
  const paths = LETTERS.map((d, i) => `<path transform="translate(${i * 80} 0)" d="${d}"/>`).join('');
  const [r, g, b] = WATERMARK_RGB;
  const word = (stroke: string, widthUnits: number, opacity: number) =>
    `<g fill="none" stroke="${stroke}" stroke-width="${widthUnits}" stroke-linecap="square" stroke-linejoin="miter" stroke-opacity="${opacity}">${paths}</g>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<g transform="translate(${width / 2} ${height / 2}) rotate(${angle.toFixed(3)}) scale(${scale.toFixed(5)}) ` +
    `translate(${-WORD_WIDTH / 2} ${-WORD_HEIGHT / 2})">` +
    word('#ffffff', 22, 0.35) +
    word(`rgb(${r},${g},${b})`, 14, WATERMARK_OPACITY) +
    '</g></svg>'
  );
}

/** The image (any format libvips reads) with the TEST watermark, as a JPEG of the given quality. */
export async function watermarkTest(image: Buffer, quality: number): Promise<Buffer> {
  const { width, height } = await sharp(image).metadata();
  if (!width || !height) throw new RangeError('watermarkTest: the image has no dimensions');
  return jpegOf(
    sharp(image).composite([{ input: Buffer.from(testWatermarkSvg(width, height)), left: 0, top: 0 }]),
    quality,
  );
}
