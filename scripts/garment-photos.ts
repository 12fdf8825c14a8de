// Corpus (b) of issue 38: real photos of plain tees with hand-drawn garment masks (test/helpers/garment-photos.ts).
// Prints the found mask's IoU with the hand-drawn one and whether the print centre lands on the chest, per photo and
// in summary (the figures of docs/compositing.md). With GARMENT_OVERLAYS=<dir>, writes one picture per photo: the
// hand-drawn outline's mask in green, the found region in blue (overlap) or red (found, not drawn), the chest box
// in yellow and the print centre as a cross.
//   node --import tsx scripts/garment-photos.ts
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { chestBox, evaluatePhoto, manifest, photoBytes } from '../test/helpers/garment-photos';

async function main() {
  const m = manifest();
  const out = process.env.GARMENT_OVERLAYS;
  if (out) mkdirSync(out, { recursive: true });
  const rows: { p: (typeof m.photos)[number]; r: Awaited<ReturnType<typeof evaluatePhoto>> }[] = [];
  for (const p of m.photos) {
    const bytes = photoBytes(p);
    if (!bytes) throw new Error(`no copy of ${m.dataset} at hand (GARMENT_PHOTOS_DIR or GARMENT_PHOTOS_REPO)`);
    const r = await evaluatePhoto(p, bytes);
    rows.push({ p, r });
    if (out) {
      const { data, info } = await sharp(bytes)
        .resize(r.w, r.h, { fit: 'fill' })
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const o = Buffer.from(data);
      for (let i = 0; i < r.w * r.h; i++) {
        const t = r.truth[i];
        const f = r.found_mask?.[i];
        const j = i * info.channels;
        const tint = t && f ? [60, 60, 255] : t ? [0, 255, 0] : f ? [255, 0, 0] : null;
        if (tint) for (let c = 0; c < 3; c++) o[j + c] = Math.round(o[j + c]! * 0.5 + tint[c]! * 0.5);
      }
      const chest = chestBox(r.truth, r.w, r.h);
      const cross = r.centre
        ? `<path d="M${r.centre.x - 8},${r.centre.y}H${r.centre.x + 8}M${r.centre.x},${r.centre.y - 8}V${r.centre.y + 8}" stroke="white" stroke-width="3"/>`
        : '';
      const svg = `<svg width="${r.w}" height="${r.h}"><rect x="${chest.x0}" y="${chest.y0}" width="${chest.x1 - chest.x0}" height="${chest.y1 - chest.y0}" fill="none" stroke="yellow" stroke-width="2"/>${cross}</svg>`;
      await sharp(o, { raw: { width: r.w, height: r.h, channels: info.channels } })
        .composite([{ input: Buffer.from(svg) }])
        .png()
        .toFile(path.join(out, `${p.image}.png`));
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)]!;
  console.log('| photo | found | IoU | print on the chest | ms |');
  console.log('|---|---|---:|---|---:|');
  for (const { p, r } of rows)
    console.log(
      `| ${p.image.slice(0, 8)} | ${r.source} | ${r.iou.toFixed(2)} | ${r.onChest ? 'yes' : 'no'} | ${r.ms.toFixed(0)} |`,
    );
  const summary = (label: string, set: typeof rows) => {
    const ious = set.map((x) => x.r.iou);
    const chest = set.filter((x) => x.r.onChest).length;
    console.log(
      `${label}: ${set.length} photos: IoU median ${median(ious).toFixed(2)}, min ${Math.min(...ious).toFixed(2)}, ` +
        `>= 0.85: ${ious.filter((v) => v >= 0.85).length}; print on the chest: ${chest} ` +
        `(${Math.round((100 * chest) / set.length)} %); detector median ${median(set.map((x) => x.r.ms)).toFixed(0)} ms`,
    );
  };
  console.log('');
  summary(
    'first pass',
    rows.filter((x) => !x.p.round),
  );
  summary(
    'held out (round 2)',
    rows.filter((x) => x.p.round === 2),
  );
  summary('all', rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
