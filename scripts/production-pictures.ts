// The pictures of docs/production.md, made by the real code (issue 36): a print file next to its mockup (the same
// design and placement through lib/compositing's composite and lib/print's renderPrintFile, the print on a
// checkerboard to show its transparency, the zone's edge dashed), and the first page of a job sheet of a two-line
// order (lib/production's renderJobSheet with real print files, rasterized by poppler's pdftoppm:
// `apt-get install poppler-utils`). Deterministic apart from pdftoppm's version.
//   node --import tsx scripts/production-pictures.ts   -> docs/images/production-{print-and-mockup,job-sheet}.png
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { renderBlank, zonesFor } from '../lib/blanks';
import { composite, prepareBlank } from '../lib/compositing';
import { renderPrintFile } from '../lib/print/render';
import { renderJobSheet } from '../lib/production/job-sheet';

const OUT = path.join(__dirname, '..', 'docs', 'images');
/** The catalogue tee's front zone (db/seed/catalog.ts), inches. */
const FRONT_IN = { widthIn: 12, heightIn: 16 };
const SHOWN_HEIGHT = 560;

/** A 2400 x 3000 design: a sun over hills and a bar of text-like blocks, transparent around it. */
function design(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="3000">
    <circle cx="1200" cy="1100" r="820" fill="#f59e0b"/>
    <path d="M150 2000 Q700 1300 1200 1850 T2250 1700 L2250 2300 L150 2300 Z" fill="#1d4ed8"/>
    <rect x="300" y="2450" width="1800" height="260" rx="60" fill="#b91c1c"/>
    <rect x="420" y="2530" width="1560" height="100" rx="30" fill="#fde68a"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A checkerboard the size of the print, to show where it is transparent. */
function checkerboard(width: number, height: number, cell: number): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><pattern id="c" width="${cell * 2}" height="${cell * 2}" patternUnits="userSpaceOnUse">
      <rect width="${cell * 2}" height="${cell * 2}" fill="#ffffff"/>
      <rect width="${cell}" height="${cell}" fill="#e5e7eb"/><rect x="${cell}" y="${cell}" width="${cell}" height="${cell}" fill="#e5e7eb"/>
    </pattern></defs>
    <rect width="${width}" height="${height}" fill="url(#c)"/>
    <rect x="2" y="2" width="${width - 4}" height="${height - 4}" fill="none" stroke="#4b5563" stroke-width="3" stroke-dasharray="14 8"/>
  </svg>`);
}

/** A caption band under a picture. */
function caption(width: number, text: string): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="44">
    <rect width="${width}" height="44" fill="#ffffff"/>
    <text x="${width / 2}" y="28" font-family="DejaVu Sans, sans-serif" font-size="17" fill="#111827" text-anchor="middle">${text}</text>
  </svg>`);
}

async function withCaption(png: Buffer, text: string): Promise<Buffer> {
  const { width } = await sharp(png).metadata();
  return sharp(png)
    .extend({ bottom: 44, background: '#ffffff' })
    .composite([{ input: caption(width!, text), left: 0, top: (await sharp(png).metadata()).height! }])
    .png()
    .toBuffer();
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const art = await design();
  const placement = { x: 50, y: 40, scale: 0.75, rotation: -6 };
  const colorHex = '#A3A7AB';

  // the mockup: the catalogue tee's blank, its front zone, the generation's composite
  const { image } = await renderBlank({ silhouette: 'tee', view: 'front', colorHex, size: 1600 });
  const blank = await prepareBlank('tee-front', image, null);
  const zone = zonesFor('tee').front!.rect;
  const mock = await composite({ blank, design: art, zone, placement, applyTexture: true });
  const mockShown = await sharp(mock.mockup).resize({ height: SHOWN_HEIGHT }).png().toBuffer();

  // the print file: the same design and placement on the zone's 12 x 16 in at 300 DPI
  const print = await renderPrintFile({ design: art, zone: FRONT_IN, size: 'M', placement, garmentHex: colorHex });
  const shownW = Math.round((SHOWN_HEIGHT * print.widthPx) / print.heightPx);
  const printShown = await sharp(checkerboard(shownW, SHOWN_HEIGHT, 14))
    .composite([{ input: await sharp(print.png).resize({ height: SHOWN_HEIGHT }).png().toBuffer() }])
    .png()
    .toBuffer();
  const left = await withCaption(mockShown, 'The mockup (generation)');
  const right = await withCaption(printShown, `Print file: ${print.widthIn} x ${print.heightIn} in, ${print.dpi} DPI`);
  const lw = (await sharp(left).metadata()).width!;
  const rw = (await sharp(right).metadata()).width!;
  const gap = 32;
  const h = SHOWN_HEIGHT + 44;
  await sharp({ create: { width: lw + gap + rw, height: h, channels: 4, background: '#ffffff' } })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: right, left: lw + gap, top: 0 },
    ])
    .png({ compressionLevel: 9, palette: true, quality: 90 })
    .toFile(path.join(OUT, 'production-print-and-mockup.png'));
  process.stdout.write(`docs/images/production-print-and-mockup.png: preflight ${print.preflight.status}\n`);

  // the job sheet of a two-line order: that print on grey in M, and the same design on black in S (an underbase)
  const thumb = await sharp(mock.mockup).resize(320).jpeg({ quality: 85 }).toBuffer();
  const black = await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#1C1C1E', size: 800 });
  const onBlack = await composite({
    blank: await prepareBlank('tee-front-black', black.image, null),
    design: art,
    zone,
    placement,
    applyTexture: true,
  });
  const blackThumb = await sharp(onBlack.mockup).resize(320).jpeg({ quality: 85 }).toBuffer();
  const small = await renderPrintFile({ design: art, zone: FRONT_IN, size: 'S', placement, garmentHex: '#1C1C1E' });
  const pdf = await renderJobSheet({
    orderId: 'ord_1764250000000_docsexample',
    orderName: '#1042',
    orderedAt: new Date('2026-11-27T15:00:00Z'),
    shipTo: 'Ada Lovelace',
    shop: 'example-store.myshopify.com',
    lines: [
      {
        lineItemId: '13849240862913',
        title: 'Sunrise tee',
        garment: 'Gildan 5000 Heavy Cotton Tee',
        color: 'Sport Grey',
        size: 'M',
        quantity: 2,
        zone: 'front',
        widthIn: print.widthIn,
        heightIn: print.heightIn,
        widthPx: print.widthPx,
        heightPx: print.heightPx,
        dpi: print.dpi,
        preflight: print.preflight,
        fileName: 'gen_1764250000000_docs-front-M.png',
        underbaseFileName: null,
        thumbnail: thumb,
      },
      {
        lineItemId: '13849240862914',
        title: 'Sunrise tee',
        garment: 'Gildan 5000 Heavy Cotton Tee',
        color: 'Black',
        size: 'S',
        quantity: 1,
        zone: 'front',
        widthIn: small.widthIn,
        heightIn: small.heightIn,
        widthPx: small.widthPx,
        heightPx: small.heightPx,
        dpi: small.dpi,
        preflight: small.preflight,
        fileName: 'gen_1764250000001_docs-front-S.png',
        underbaseFileName: 'gen_1764250000001_docs-front-S-underbase.png',
        thumbnail: blackThumb,
      },
    ],
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'job-sheet-'));
  try {
    writeFileSync(path.join(dir, 'sheet.pdf'), pdf);
    execFileSync('pdftoppm', ['-png', '-r', '96', '-f', '1', '-l', '1', '-singlefile', 'sheet.pdf', 'sheet'], {
      cwd: dir,
    });
    await sharp(readFileSync(path.join(dir, 'sheet.png')))
      .png({ compressionLevel: 9, palette: true, quality: 90 })
      .toFile(path.join(OUT, 'production-job-sheet.png'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write('docs/images/production-job-sheet.png\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
