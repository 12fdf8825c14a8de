// The built-in local renderer: a real graphic made from the prompt alone, offline, in tens of milliseconds, so
// `npm start` works without any provider key. Deterministic for a prompt (and, when it edits, for the previous
// graphic): its key words set as legible type, the colours it names as the inks, and a motif its words suggest,
// drawn as SVG and rasterized by sharp (librsvg; the type is DejaVu Sans Bold through fontconfig) on a flat
// background, as an image model's answer would be. Used only when no provider key is configured.
import sharp from 'sharp';
import { hashString } from '../hash';
import { readPrompt, type Motif, type PromptReading } from './prompt';

export const LOCAL_RENDER_SIZE = 1024;

export interface LocalGraphic {
  png: Buffer;
  width: number;
  height: number;
  reading: PromptReading;
  /** the flat background colour, #rrggbb */
  background: string;
  /** true when the previous graphic was recoloured instead of a new one drawn */
  edited: boolean;
}

/** Fallback inks when the prompt names none, picked by the prompt's hash. */
const PALETTES: [string, string, string][] = [
  ['#d7262e', '#1f2f6b', '#f7d417'],
  ['#12857f', '#f07a1a', '#151515'],
  ['#7b33b5', '#f27ab0', '#1f2f6b'],
  ['#2360d8', '#f7d417', '#151515'],
  ['#2e9e48', '#1d3b2a', '#f4ecd2'],
  ['#f07a1a', '#7a1626', '#f7d417'],
];

const luminance = (hex: string) => {
  const n = parseInt(hex.slice(1), 16);
  return (0.2126 * ((n >> 16) & 255) + 0.7152 * ((n >> 8) & 255) + 0.0722 * (n & 255)) / 255;
};

const escapeXml = (s: string) =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** Inks for the design and a flat background none of them is close to. */
export function chooseColors(reading: PromptReading): { inks: [string, string, string]; background: string } {
  const named = reading.colors.map((c) => c.hex);
  const fallback = PALETTES[reading.seed % PALETTES.length]!;
  const inks: string[] = [];
  for (const c of [...named, ...fallback]) if (!inks.includes(c) && inks.length < 3) inks.push(c);
  const candidates = ['#ffffff', '#151515', '#7f7f7f'];
  const background =
    candidates.find((bg) => inks.every((ink) => Math.abs(luminance(ink) - luminance(bg)) > 0.12)) ?? '#7f7f7f';
  return { inks: inks as [string, string, string], background };
}

/** The headline in one or two balanced lines. */
export function headlineLines(words: string[]): string[] {
  const upper = words.map((w) => w.toUpperCase());
  const text = upper.join(' ');
  if (upper.length < 2 || text.length <= 13) return [text];
  let best = 1;
  let bestDiff = Infinity;
  for (let i = 1; i < upper.length; i++) {
    const diff = Math.abs(upper.slice(0, i).join(' ').length - upper.slice(i).join(' ').length);
    if (diff < bestDiff) {
      best = i;
      bestDiff = diff;
    }
  }
  return [upper.slice(0, best).join(' '), upper.slice(best).join(' ')];
}

function motifSvg(motif: Motif, inks: [string, string, string], bg: string, seed: number): string {
  const [a, b, c] = inks;
  const cx = 512;
  const cy = 330;
  switch (motif) {
    case 'sun': {
      const rays = Array.from({ length: 16 }, (_, i) => {
        const t = (i * Math.PI) / 8;
        const x1 = cx + Math.cos(t) * 165;
        const y1 = cy + Math.sin(t) * 165;
        const x2 = cx + Math.cos(t) * 235;
        const y2 = cy + Math.sin(t) * 235;
        return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${b}" stroke-width="22" stroke-linecap="round"/>`;
      }).join('');
      return `${rays}<circle cx="${cx}" cy="${cy}" r="140" fill="${a}"/>
        <rect x="${cx - 140}" y="${cy + 40}" width="280" height="22" fill="${c}"/>
        <rect x="${cx - 130}" y="${cy + 82}" width="260" height="18" fill="${c}"/>`;
    }
    case 'mountain':
      return `<circle cx="${cx + 120}" cy="${cy - 90}" r="70" fill="${c}"/>
        <polygon points="${cx - 260},${cy + 190} ${cx - 70},${cy - 150} ${cx + 120},${cy + 190}" fill="${a}"/>
        <polygon points="${cx - 40},${cy + 190} ${cx + 120},${cy - 60} ${cx + 280},${cy + 190}" fill="${b}"/>
        <polygon points="${cx - 70},${cy - 150} ${cx - 122},${cy - 58} ${cx - 70},${cy - 80} ${cx - 20},${cy - 58}" fill="${bg === '#ffffff' ? '#f4f4f4' : '#ffffff'}" stroke="${b}" stroke-width="6"/>`;
    case 'wave':
      return [0, 1, 2]
        .map((i) => {
          const y = cy - 110 + i * 110;
          return `<path d="M ${cx - 270} ${y} q 67 -80 135 0 t 135 0 t 135 0 t 135 0" fill="none" stroke="${inks[i]}" stroke-width="44" stroke-linecap="round"/>`;
        })
        .join('');
    case 'star': {
      const pts = Array.from({ length: 10 }, (_, i) => {
        const r = i % 2 === 0 ? 230 : 95;
        const t = -Math.PI / 2 + (i * Math.PI) / 5;
        return `${(cx + Math.cos(t) * r).toFixed(1)},${(cy + 10 + Math.sin(t) * r).toFixed(1)}`;
      }).join(' ');
      return `<circle cx="${cx}" cy="${cy + 10}" r="90" fill="${c}"/><polygon points="${pts}" fill="${a}" stroke="${b}" stroke-width="16" stroke-linejoin="round"/>`;
    }
    case 'heart':
      return `<path d="M ${cx} ${cy + 200} C ${cx - 330} ${cy - 20} ${cx - 170} ${cy - 260} ${cx} ${cy - 110} C ${cx + 170} ${cy - 260} ${cx + 330} ${cy - 20} ${cx} ${cy + 200} Z" fill="${a}" stroke="${b}" stroke-width="18" stroke-linejoin="round"/>
        <circle cx="${cx - 95}" cy="${cy - 80}" r="28" fill="${c}"/>`;
    case 'moon':
      return `<path d="M ${cx + 60} ${cy - 220} A 220 220 0 1 0 ${cx + 60} ${cy + 220} A 170 170 0 1 1 ${cx + 60} ${cy - 220} Z" fill="${a}" stroke="${b}" stroke-width="14"/>
        <circle cx="${cx + 150}" cy="${cy - 70}" r="22" fill="${c}"/><circle cx="${cx + 200}" cy="${cy + 40}" r="14" fill="${c}"/>`;
    case 'bolt':
      return `<circle cx="${cx}" cy="${cy}" r="220" fill="none" stroke="${b}" stroke-width="20"/>
        <polygon points="${cx + 40},${cy - 200} ${cx - 120},${cy + 30} ${cx - 10},${cy + 30} ${cx - 50},${cy + 200} ${cx + 120},${cy - 40} ${cx + 10},${cy - 40}" fill="${a}" stroke="${c}" stroke-width="8" stroke-linejoin="round"/>`;
    case 'flower': {
      const petals = Array.from(
        { length: 8 },
        (_, i) =>
          `<ellipse cx="${cx}" cy="${cy - 120}" rx="62" ry="120" fill="${i % 2 ? b : a}" transform="rotate(${i * 45} ${cx} ${cy})"/>`,
      ).join('');
      return `${petals}<circle cx="${cx}" cy="${cy}" r="70" fill="${c}"/>`;
    }
    case 'tree':
      return `<rect x="${cx - 28}" y="${cy + 130}" width="56" height="90" fill="${b}"/>
        <polygon points="${cx},${cy - 230} ${cx - 150},${cy - 20} ${cx + 150},${cy - 20}" fill="${a}"/>
        <polygon points="${cx},${cy - 140} ${cx - 200},${cy + 140} ${cx + 200},${cy + 140}" fill="${a}" stroke="${b}" stroke-width="10" stroke-linejoin="round"/>
        <circle cx="${cx - 60}" cy="${cy + 40}" r="16" fill="${c}"/><circle cx="${cx + 70}" cy="${cy - 30}" r="16" fill="${c}"/>`;
    case 'badge':
    default: {
      const sides = 5 + (seed % 4); // pentagon .. octagon
      const pts = Array.from({ length: sides }, (_, i) => {
        const t = -Math.PI / 2 + (i * 2 * Math.PI) / sides;
        return `${(cx + Math.cos(t) * 230).toFixed(1)},${(cy + Math.sin(t) * 230).toFixed(1)}`;
      }).join(' ');
      return `<polygon points="${pts}" fill="${a}" stroke="${b}" stroke-width="22" stroke-linejoin="round"/>
        <circle cx="${cx}" cy="${cy}" r="120" fill="${c}" stroke="${b}" stroke-width="14"/>`;
    }
  }
}

/** The SVG of a prompt's graphic (exported for tests and for reading what the renderer draws). */
export function graphicSvg(prompt: string): { svg: string; reading: PromptReading; background: string } {
  const reading = readPrompt(prompt);
  const { inks, background } = chooseColors(reading);
  const words = reading.keyWords.length ? reading.keyWords : ['design'];
  const lines = headlineLines(words);
  const longest = Math.max(...lines.map((l) => l.length));
  // DejaVu Sans Bold capitals average ~0.74 em; the type fills at most 900 px of the width.
  const size = Math.max(48, Math.min(150, Math.floor(900 / (longest * 0.74))));
  const top = lines.length === 1 ? 760 : 700;
  // the type in the ink that stands out most from the background, outlined in the next one
  const contrast = (ink: string) => Math.abs(luminance(ink) - luminance(background));
  const named = inks.slice(0, Math.max(1, Math.min(3, reading.colors.length)));
  const fill = [...named].sort((x, y) => contrast(y) - contrast(x))[0]!;
  const outline = inks.find((ink) => ink !== fill)!;
  const text = lines
    .map(
      (l, i) =>
        `<text x="512" y="${top + i * Math.round(size * 1.08)}" text-anchor="middle" font-family="DejaVu Sans, Verdana, sans-serif" font-weight="bold" font-size="${size}" fill="${fill}" stroke="${outline}" stroke-width="${Math.max(2, Math.round(size / 28))}" paint-order="stroke">${escapeXml(l)}</text>`,
    )
    .join('');
  const S = LOCAL_RENDER_SIZE;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}" viewBox="0 0 ${S} ${S}">
    <rect width="${S}" height="${S}" fill="${background}"/>
    ${motifSvg(reading.motif, inks, background, reading.seed)}
    <rect x="212" y="${top - size - 40}" width="600" height="10" rx="5" fill="${inks[2]}"/>
    ${text}
  </svg>`;
  return { svg, reading, background };
}

/**
 * Renders the graphic of a prompt. With `previous` (the thread's last graphic) and a prompt that names a colour but
 * nothing new to draw ("make it blue"), the previous graphic is recoloured in that colour instead, as an image model
 * editing it would.
 */
export async function renderLocalGraphic(prompt: string, opts: { previous?: Buffer } = {}): Promise<LocalGraphic> {
  const reading = readPrompt(prompt);
  if (opts.previous && reading.colors.length > 0 && reading.keyWords.length === 0) {
    const ink = reading.colors[0]!.hex;
    const n = parseInt(ink.slice(1), 16);
    const png = await sharp(opts.previous)
      .flatten({ background: '#ffffff' })
      .resize(LOCAL_RENDER_SIZE, LOCAL_RENDER_SIZE, { fit: 'contain', background: '#ffffff' })
      .tint({ r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 })
      .png({ compressionLevel: 6 })
      .toBuffer();
    return {
      png,
      width: LOCAL_RENDER_SIZE,
      height: LOCAL_RENDER_SIZE,
      reading,
      background: '#ffffff',
      edited: true,
    };
  }
  const { svg, background } = graphicSvg(prompt);
  const png = await sharp(Buffer.from(svg), { density: 72 }).png({ compressionLevel: 6 }).toBuffer();
  return { png, width: LOCAL_RENDER_SIZE, height: LOCAL_RENDER_SIZE, reading, background, edited: false };
}

export { hashString };
