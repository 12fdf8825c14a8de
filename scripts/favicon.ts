// Writes web/favicon.ico from web/favicon.svg (run after changing the SVG: node --import tsx scripts/favicon.ts).
// Browsers ask for /favicon.ico by themselves (and some pages cannot link the SVG), so the dashboard serves both.
// The ICO holds 16, 32 and 48 px PNG images (the PNG-in-ICO form every current browser reads).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const WEB = path.resolve(__dirname, '../web');
const SIZES = [16, 32, 48];

async function main(): Promise<void> {
  const svg = readFileSync(path.join(WEB, 'favicon.svg'));
  // the SVG's viewBox is 32 units: render at 4x the largest size's density, then scale down for clean edges
  const pngs = await Promise.all(
    SIZES.map((s) =>
      sharp(svg, { density: ((72 * s) / 32) * 4 })
        .resize(s, s)
        .png()
        .toBuffer(),
    ),
  );
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // 1 = icon
  header.writeUInt16LE(SIZES.length, 4);
  const dir = Buffer.alloc(16 * SIZES.length);
  let offset = header.length + dir.length;
  SIZES.forEach((s, i) => {
    const e = i * 16;
    dir.writeUInt8(s, e); // width
    dir.writeUInt8(s, e + 1); // height
    dir.writeUInt16LE(1, e + 4); // colour planes
    dir.writeUInt16LE(32, e + 6); // bits per pixel
    dir.writeUInt32LE(pngs[i]!.length, e + 8);
    dir.writeUInt32LE(offset, e + 12);
    offset += pngs[i]!.length;
  });
  writeFileSync(path.join(WEB, 'favicon.ico'), Buffer.concat([header, dir, ...pngs]));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
