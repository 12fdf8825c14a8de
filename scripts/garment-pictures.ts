// The before/after pictures of docs/compositing.md ("Clients' own photos"): a customer-framed photo (our tee blank
// at half size in the bottom-right corner of a wider photo) with the print zone in fractions of the image (before:
// what a photo got until the garment was looked for) and fitted to the garment found in it (after), the found
// garment outlined in green and the zone dashed in blue. Deterministic: the same code gives the same PNGs.
//   node --import tsx scripts/garment-pictures.ts      -> docs/images/garment-{before,after}.png
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { choosePrintZone, composite, prepareBlank, zonePixels, type ZoneRect } from '../lib/compositing';
import { zonesFor } from '../lib/blanks';
import { framedPhoto, ownBlank } from '../test/helpers/customer-photos';

const OUT = path.join(__dirname, '..', 'docs', 'images');
const SHOWN_WIDTH = 720;

/** A 600x600 design: a filled circle and a bar, easy to see on the grey tee. */
async function design(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600">
    <circle cx="300" cy="260" r="220" fill="#f5d90a"/><rect x="80" y="500" width="440" height="80" fill="#111"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Outlines (garment: solid green; zone: dashed blue) as an SVG the size of the picture. */
function outlines(w: number, h: number, zone: ZoneRect, garment: ZoneRect | null): Buffer {
  const z = zonePixels(zone, w, h);
  const g = garment ? zonePixels(garment, w, h) : null;
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    ${g ? `<rect x="${g.left}" y="${g.top}" width="${g.width}" height="${g.height}" fill="none" stroke="#16a34a" stroke-width="8"/>` : ''}
    <rect x="${z.left}" y="${z.top}" width="${z.width}" height="${z.height}" fill="none" stroke="#1d4ed8" stroke-width="8" stroke-dasharray="28 16"/>
  </svg>`);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const blank = await ownBlank('tee', 'front', '#A3A7AB', 1600);
  const photo = await framedPhoto(blank, {
    width: 1800,
    height: 1200,
    scale: 0.65,
    left: 1800 - 1040 - 40,
    top: 1200 - 1040 - 20,
    backdrop: 'studio',
  });
  const prepared = await prepareBlank('url:photo', photo.image, null, { findGarment: true });
  const zone = zonesFor('tee').front!.rect;
  const after = await choosePrintZone({ blank: prepared, zone, silhouette: 'tee', view: 'front' });
  if (after.basis !== 'garment') throw new Error(`garment not found: ${JSON.stringify(prepared.garment)}`);
  const g = prepared.garment?.found ? prepared.garment.box : null;
  const garment = g ? { x: g.left, y: g.top, width: g.width, height: g.height } : null;
  const art = await design();
  const placement = { x: 50, y: 35, scale: 0.8, rotation: 0 };
  for (const [name, z, box] of [
    ['garment-before.png', zone, null],
    ['garment-after.png', after.zone, garment],
  ] as const) {
    const out = await composite({ blank: prepared, design: art, zone: z, placement, applyTexture: true });
    const drawn = await sharp(out.mockup)
      .composite([{ input: outlines(out.width, out.height, z, box) }])
      .png()
      .toBuffer();
    await sharp(drawn)
      .resize(SHOWN_WIDTH)
      .png({ compressionLevel: 9, palette: true, quality: 90 })
      .toFile(path.join(OUT, name));
    process.stdout.write(
      `${path.join('docs/images', name)}: zone ${JSON.stringify(zonePixels(z, out.width, out.height))}\n`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
