// The job sheet: one PDF per order for the print shop (pdf-lib): order number and date, ship-to name, a QR code of
// the order id, and per line the mockup thumbnail, garment, colour, size, quantity, zone, print size in inches and
// pixels, preflight status and the file names in the archive. Letter pages, as many as the lines need.
import type { PDFFont, PDFImage, PDFPage } from 'pdf-lib';
import type { PreflightReport } from '../print/preflight';

export interface JobSheetLine {
  lineItemId: string;
  title: string;
  garment: string;
  color: string;
  size: string;
  quantity: number;
  zone: string;
  widthIn: number;
  heightIn: number;
  widthPx: number;
  heightPx: number;
  dpi: number;
  preflight: Pick<PreflightReport, 'status' | 'checks'>;
  fileName: string;
  underbaseFileName: string | null;
  /** the mockup's thumbnail, JPEG or PNG, or null */
  thumbnail: Buffer | null;
}

export interface JobSheetInput {
  orderId: string;
  orderName: string;
  orderedAt: Date;
  shipTo: string | null;
  shop: string;
  lines: JobSheetLine[];
}

const PAGE: [number, number] = [612, 792];
const MARGIN = 40;
const ROW = 118;
const THUMB = 96;

/** The standard fonts encode WinAnsi only: anything else is shown as '?'. */
const winAnsi = (s: string) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

const fmt = (n: number) => String(Math.round(n * 100) / 100);

export async function renderJobSheet(input: JobSheetInput): Promise<Uint8Array> {
  // pdf-lib and qrcode are loaded by the first sheet (a worker that never makes one does not hold them: issue 34,
  // docs/benchmarks.md "The worker's memory at startup"; test/unit/production-lazy.test.ts)
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PDFDocument, rgb, StandardFonts } = require('pdf-lib') as typeof import('pdf-lib');
  const QRCode = require('qrcode') as typeof import('qrcode');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const pdf = await PDFDocument.create();
  pdf.setTitle(winAnsi(`Job sheet ${input.orderName}`));
  pdf.setSubject(input.orderId);
  pdf.setCreator('apparel-mockup production');
  // a fixed date keeps a re-made sheet byte for byte the same
  pdf.setCreationDate(input.orderedAt);
  pdf.setModificationDate(input.orderedAt);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const qr = await pdf.embedPng(await QRCode.toBuffer(input.orderId, { type: 'png', margin: 1, width: 240 }));

  const text = (page: PDFPage, s: string, x: number, y: number, size = 10, f: PDFFont = font) =>
    page.drawText(winAnsi(s), { x, y, size, font: f, color: rgb(0.1, 0.1, 0.1) });

  let page = pdf.addPage(PAGE);
  let y = PAGE[1] - MARGIN;
  const header = (first: boolean) => {
    text(page, 'Job sheet', MARGIN, y - 22, 22, bold);
    text(page, `Order ${input.orderName}`, MARGIN, y - 46, 14, bold);
    text(page, `Ordered ${input.orderedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`, MARGIN, y - 64);
    text(page, `Ship to: ${input.shipTo ?? '(no name on the order)'}`, MARGIN, y - 80);
    text(page, `Shop: ${input.shop}`, MARGIN, y - 96);
    text(page, `Order id: ${input.orderId}`, MARGIN, y - 112, 9);
    page.drawImage(qr, { x: PAGE[0] - MARGIN - 96, y: y - 104, width: 96, height: 96 });
    text(page, 'scan: order id', PAGE[0] - MARGIN - 84, y - 116, 8);
    if (!first) text(page, '(continued)', MARGIN + 260, y - 22, 10);
    y -= 132;
    page.drawLine({ start: { x: MARGIN, y }, end: { x: PAGE[0] - MARGIN, y }, thickness: 1 });
    y -= 8;
  };
  header(true);
  const units = input.lines.reduce((n, l) => n + l.quantity, 0);
  text(
    page,
    `${input.lines.length} line${input.lines.length === 1 ? '' : 's'}, ${units} item${units === 1 ? '' : 's'}`,
    MARGIN,
    y - 12,
    11,
    bold,
  );
  y -= 22;

  for (const [i, l] of input.lines.entries()) {
    if (y - ROW < MARGIN) {
      page = pdf.addPage(PAGE);
      y = PAGE[1] - MARGIN;
      header(false);
    }
    const top = y;
    let image: PDFImage | null = null;
    if (l.thumbnail) {
      const isPng = l.thumbnail.subarray(0, 4).toString('latin1') === '\x89PNG';
      image = await (isPng ? pdf.embedPng(l.thumbnail) : pdf.embedJpg(l.thumbnail)).catch(() => null);
    }
    if (image) {
      const k = Math.min(THUMB / image.width, THUMB / image.height);
      page.drawImage(image, {
        x: MARGIN,
        y: top - 6 - image.height * k,
        width: image.width * k,
        height: image.height * k,
      });
    } else {
      page.drawRectangle({ x: MARGIN, y: top - 6 - THUMB, width: THUMB, height: THUMB, borderWidth: 0.5 });
      text(page, 'no thumbnail', MARGIN + 14, top - 56, 8);
    }
    const x = MARGIN + THUMB + 14;
    text(page, `${i + 1}. ${l.title}`, x, top - 16, 12, bold);
    text(page, `Garment: ${l.garment}`, x, top - 32);
    text(page, `Colour: ${l.color}    Size: ${l.size}    Quantity: ${l.quantity}`, x, top - 46, 10, bold);
    text(
      page,
      `Zone: ${l.zone}    Print: ${fmt(l.widthIn)} x ${fmt(l.heightIn)} in, ${l.widthPx} x ${l.heightPx} px at ${l.dpi} DPI`,
      x,
      top - 60,
    );
    const issues = l.preflight.checks.map((c) => `${c.code} (${c.level})`).join(', ');
    text(page, `Preflight: ${l.preflight.status.toUpperCase()}${issues ? ` - ${issues}` : ''}`, x, top - 74, 10, bold);
    text(page, `File: ${l.fileName}`, x, top - 88, 9);
    if (l.underbaseFileName) text(page, `Underbase: ${l.underbaseFileName}`, x, top - 100, 9);
    text(page, `Line item ${l.lineItemId}`, x, top - (l.underbaseFileName ? 112 : 100), 8);
    y = top - ROW;
    page.drawLine({
      start: { x: MARGIN, y: y + 4 },
      end: { x: PAGE[0] - MARGIN, y: y + 4 },
      thickness: 0.5,
      color: rgb(0.7, 0.7, 0.7),
    });
  }
  return pdf.save({ useObjectStreams: true });
}
