// The print file: the design alone on a transparent canvas of the zone's physical size at 300 DPI, placed exactly
// where the mockup shows it (lib/compositing/placement.ts, the mockup's own maths), as a PNG with an embedded sRGB
// ICC profile and its resolution in pHYs; on a dark garment, a white underbase of the same ink as a second PNG. Each
// comes with its preflight report (preflight.ts). Pure image work: bytes in, bytes out.
import sharp from 'sharp';
import { checkPlacement } from '../compositing/composite';
import { MAX_DESIGN_PIXELS } from '../compositing/config';
import { DesignImageError } from '../compositing/design';
import { placedBox, placedSize, placementFrame, type Placement } from '../compositing/placement';
import { uprightSize } from '../images/design-levels';
import { preflight, type PlacedRaster, type PreflightReport } from './preflight';
import { zoneForSize } from './sizes';

export const PRINT_DPI = 300;
/** zlib level without adaptive filtering: a print file's bytes matter less than the time to make it. */
export const PRINT_PNG_COMPRESSION = 3;

export interface PrintFileInput {
  design: Buffer;
  /** the garment's zone at its reference size, inches (the catalogue's maxWidth x maxHeight) */
  zone: { widthIn: number; heightIn: number };
  /** garment size label: the zone is scaled by the size rule (sizes.ts) */
  size: string;
  placement: Placement;
  /** the garment's colour, #rrggbb: a dark one gets an underbase */
  garmentHex?: string | null;
  dpi?: number;
}

export interface PrintFile {
  png: Buffer;
  /** white ink where the print has ink, same canvas; only for a dark garment */
  underbase: Buffer | null;
  widthPx: number;
  heightPx: number;
  dpi: number;
  widthIn: number;
  heightIn: number;
  /** the size rule's scale for this garment size (1 for M and up) */
  sizeScale: number;
  /** the unrotated placed design on the canvas (as the mockup's designBox is on the blank) */
  designBox: { left: number; top: number; width: number; height: number };
  preflight: PreflightReport;
}

const CLEAR = { r: 0, g: 0, b: 0, alpha: 0 };

async function sizeOf(design: Buffer) {
  try {
    return await uprightSize(design, { limitInputPixels: MAX_DESIGN_PIXELS });
  } catch (err) {
    throw new DesignImageError(`design image cannot be decoded: ${(err as Error).message}`, { cause: err });
  }
}

/** The design resized to its placed size and rotated, raw RGBA. */
async function placedRaster(design: Buffer, target: { width: number; height: number }, rotation: number) {
  let out = await sharp(design, { limitInputPixels: MAX_DESIGN_PIXELS, failOn: 'error', autoOrient: true })
    .resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' })
    .toColorspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true })
    .catch((err: unknown) => {
      throw new DesignImageError(`design image cannot be decoded: ${(err as Error).message}`, { cause: err });
    });
  if (rotation !== 0) {
    out = await sharp(out.data, { raw: { width: out.info.width, height: out.info.height, channels: 4 } })
      .rotate(rotation, { background: CLEAR })
      .raw()
      .toBuffer({ resolveWithObject: true });
  }
  return { data: out.data, width: out.info.width, height: out.info.height };
}

/** The raster's part on the canvas, extended with clear pixels to the whole canvas: a PNG at `dpi` in sRGB. */
async function canvasPng(r: PlacedRaster, canvas: { width: number; height: number }, dpi: number): Promise<Buffer> {
  const x0 = Math.max(0, r.left);
  const y0 = Math.max(0, r.top);
  const x1 = Math.min(canvas.width, r.left + r.width);
  const y1 = Math.min(canvas.height, r.top + r.height);
  let img: sharp.Sharp;
  if (x1 <= x0 || y1 <= y0) {
    img = sharp({ create: { width: canvas.width, height: canvas.height, channels: 4, background: CLEAR } });
  } else {
    img = sharp(r.data, { raw: { width: r.width, height: r.height, channels: 4 } });
    if (x0 - r.left !== 0 || y0 - r.top !== 0 || x1 - x0 !== r.width || y1 - y0 !== r.height)
      img = img.extract({ left: x0 - r.left, top: y0 - r.top, width: x1 - x0, height: y1 - y0 });
    img = img.extend({
      left: x0,
      top: y0,
      right: canvas.width - x1,
      bottom: canvas.height - y1,
      background: CLEAR,
    });
  }
  return img
    .withIccProfile('srgb')
    .withDensity(dpi)
    .png({ compressionLevel: PRINT_PNG_COMPRESSION, adaptiveFiltering: false })
    .toBuffer();
}

/** The same raster with every colour white, alpha kept: the underbase's ink. */
function whiteInk(r: PlacedRaster): PlacedRaster {
  const data = Buffer.from(r.data);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = 255;
    data[i + 1] = 255;
    data[i + 2] = 255;
  }
  return { ...r, data };
}

/** Where the print's design lands and its preflight, without the PNG: what the studio checks before Generate. */
export type PrintLayout = Omit<PrintFile, 'png' | 'underbase'>;

/** The print laid out: the canvas, the placed raster and its preflight (the pixels a print file is encoded from). */
async function layOut(input: PrintFileInput): Promise<{ layout: PrintLayout; placed: PlacedRaster }> {
  checkPlacement(input.placement);
  const dpi = input.dpi ?? PRINT_DPI;
  const zone = zoneForSize(input.zone, input.size);
  if (!(zone.widthIn > 0 && zone.heightIn > 0)) throw new RangeError(`zone without a size: ${JSON.stringify(zone)}`);
  const canvas = { width: Math.round(zone.widthIn * dpi), height: Math.round(zone.heightIn * dpi) };
  const designSize = await sizeOf(input.design);
  const frame = placementFrame({ x: 0, y: 0, width: canvas.width, height: canvas.height }, input.placement);
  const target = placedSize(frame, designSize);
  const raster = await placedRaster(input.design, target, input.placement.rotation);
  // the rotated raster keeps its centre on the placement's centre (as the mockup's pixel loop maps it)
  const placed: PlacedRaster = {
    ...raster,
    left: Math.round(frame.cx - raster.width / 2),
    top: Math.round(frame.cy - raster.height / 2),
  };
  const report = preflight({
    placed,
    canvas,
    dpi,
    designSize,
    placedSize: target,
    garmentHex: input.garmentHex ?? null,
  });
  return {
    placed,
    layout: {
      widthPx: canvas.width,
      heightPx: canvas.height,
      dpi,
      widthIn: Math.round(zone.widthIn * 1000) / 1000,
      heightIn: Math.round(zone.heightIn * 1000) / 1000,
      sizeScale: zone.scale,
      designBox: placedBox(frame, target),
      preflight: report,
    },
  };
}

/** The print file's layout and preflight without making the file (the same pixels, nothing encoded or stored). */
export async function preflightPrint(input: PrintFileInput): Promise<PrintLayout> {
  return (await layOut(input)).layout;
}

export async function renderPrintFile(input: PrintFileInput): Promise<PrintFile> {
  const { layout, placed } = await layOut(input);
  const canvas = { width: layout.widthPx, height: layout.heightPx };
  const [png, underbase] = await Promise.all([
    canvasPng(placed, canvas, layout.dpi),
    layout.preflight.underbase ? canvasPng(whiteInk(placed), canvas, layout.dpi) : Promise.resolve(null),
  ]);
  return { png, underbase, ...layout };
}
