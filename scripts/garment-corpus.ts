// Corpus (a) of issue 38, in full: every colour of every catalogue garment (each silhouette and colour once), cut out
// of our own blank and reframed (50-100 % of the frame's short side, in a corner or the centre, landscape or
// portrait) on five backdrops (pure white; white, light grey and mid grey paper with falloff and noise; the garment's
// own colour), with and without a soft drop shadow, JPEG q70-95 (test/helpers/garment-corpus.ts). Measures the found
// mask's IoU with the true silhouette and the print centre's distance from where it lands on our own blank, and
// prints the tables of docs/compositing.md (Markdown) on stdout.
//   node --import tsx scripts/garment-corpus.ts
//   node --import tsx scripts/garment-corpus.ts --light-shadow   (only the white to light grey backdrops with a drop
//   shadow, the hardest 162 photos, the same ones as in the full run: for iterating)
//   node --import tsx scripts/garment-corpus.ts --cases out.jsonl   (also writes every case and its result, a line each)
import { writeFileSync } from 'node:fs';
import {
  BACKDROPS,
  corpusCases,
  evaluateCase,
  LIGHT_BACKDROPS as LIGHT,
  type CaseResult,
  type CorpusCase,
} from '../test/helpers/garment-corpus';

const say = (m: string) => process.stderr.write(`[garment-corpus] ${m}\n`);

async function main() {
  const onlyLightShadow = process.argv.includes('--light-shadow');
  const all = corpusCases().filter((c) => !onlyLightShadow || (c.shadow && LIGHT.includes(c.backdrop.name)));
  const results: { c: CorpusCase; r: CaseResult }[] = [];
  for (const c of all) {
    results.push({ c, r: await evaluateCase(c) });
    if (results.length % 50 === 0) say(`${results.length}/${all.length}`);
  }

  const median = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
  };
  const f = (v: number) => v.toFixed(2);
  const colours = [...new Set(results.map((x) => x.c.colorName))];
  const backdrops = BACKDROPS.filter((b) => results.some((x) => x.c.backdrop.name === b.name));
  const lines: string[] = [];
  lines.push(
    `| colour | ${backdrops.map((b) => b.name).join(' | ')} | print centre, worst |`,
    `|---|${backdrops.map(() => '---:').join('|')}|---:|`,
  );
  for (const colour of colours) {
    const mine = results.filter((x) => x.c.colorName === colour);
    const cells = backdrops.map((b) => {
      const v = mine.filter((x) => x.c.backdrop.name === b.name).map((x) => x.r.iou);
      return `${f(median(v))} (${f(Math.min(...v))})`;
    });
    const worst = Math.max(...mine.map((x) => x.r.centreError));
    lines.push(
      `| ${colour} (${new Set(mine.map((x) => x.c.silhouette)).size}) | ${cells.join(' | ')} | ${Number.isFinite(worst) ? (worst * 100).toFixed(1) + ' %' : 'not placed'} |`,
    );
  }
  const summary = (label: string, sel: typeof results) => {
    const iou = sel.map((x) => x.r.iou);
    const ce = sel.map((x) => x.r.centreError);
    return `| ${label} | ${sel.length} | ${f(median(iou))} | ${f(Math.min(...iou))} | ${sel.filter((x) => x.r.iou >= 0.92).length} | ${(median(ce) * 100).toFixed(1)} % | ${(Math.max(...ce) * 100).toFixed(1)} % | ${sel.filter((x) => x.r.centreError <= 0.03).length} |`;
  };
  const light = (x: (typeof results)[number]) => LIGHT.includes(x.c.backdrop.name);
  lines.push(
    '',
    '| photos | n | IoU median | IoU min | IoU >= 0.92 | centre error median | worst | within 3 % |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...(
      [
        ['all', results],
        ['white to light grey backdrops, no shadow', results.filter((x) => light(x) && !x.c.shadow)],
        ['white to light grey backdrops, shadow', results.filter((x) => light(x) && x.c.shadow)],
        ['mid grey backdrop', results.filter((x) => x.c.backdrop.name === 'mid grey')],
        ['the garment\u2019s own colour', results.filter((x) => x.c.backdrop.name === 'own colour')],
      ] as const
    )
      .filter(([, sel]) => sel.length)
      .map(([label, sel]) => summary(label, sel)),
  );
  const ms = results.map((x) => x.r.ms);
  lines.push(
    '',
    `detector time per photo (decode of the 480 px copy included): median ${median(ms).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`,
  );
  const bad = results
    .filter((x) => x.r.iou < 0.92)
    .map(
      (x) =>
        `${x.c.silhouette} ${x.c.colorName} on ${x.c.backdrop.name}${x.c.shadow ? ' +shadow' : ''} ${x.c.corner} ${x.c.scale} q${x.c.quality}: ${x.r.iou.toFixed(3)} ${x.r.source}`,
    );
  say(`below 0.92:\n${bad.join('\n')}`);
  const off = results
    .filter((x) => !(x.r.centreError <= 0.03))
    .map(
      (x) =>
        `${x.c.silhouette} ${x.c.colorName} on ${x.c.backdrop.name}${x.c.shadow ? ' +shadow' : ''} ${x.c.corner} ${x.c.scale} q${x.c.quality}: centre ${(x.r.centreError * 100).toFixed(1)} % (IoU ${x.r.iou.toFixed(3)}) ${x.r.source}`,
    );
  say(`print centre more than 3 % off:\n${off.join('\n')}`);
  const casesAt = process.argv.indexOf('--cases');
  if (casesAt > 0 && process.argv[casesAt + 1])
    writeFileSync(
      process.argv[casesAt + 1]!,
      results.map((x) => JSON.stringify({ ...x.c, backdrop: x.c.backdrop.name, ...x.r })).join('\n') + '\n',
    );
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
