// Reading a design prompt for the local renderer: the colours it names, its key words (what it is about, without
// filler), and the motif those words suggest. Pure and deterministic: the same prompt always reads the same way.
import { hashString } from '../hash';

/** Colour names a prompt may use, and the ink each stands for. Multi-word names are matched first. */
export const COLOR_NAMES: Record<string, string> = {
  'navy blue': '#1f2f6b',
  'sky blue': '#4fa8e8',
  'royal blue': '#2747c9',
  'forest green': '#1f6b34',
  'lime green': '#7ccf2f',
  'hot pink': '#ff3d9a',
  'dark green': '#1d5a2c',
  'dark blue': '#1a2d7a',
  'light blue': '#8cc8f0',
  'dark red': '#8b1219',
  red: '#d7262e',
  crimson: '#b0102f',
  scarlet: '#e0301e',
  maroon: '#7a1626',
  burgundy: '#7d1830',
  orange: '#f07a1a',
  amber: '#f5a300',
  yellow: '#f7d417',
  gold: '#d4a418',
  golden: '#d4a418',
  lime: '#8fd12c',
  green: '#2e9e48',
  olive: '#6b7a22',
  mint: '#7fdcb0',
  teal: '#12857f',
  turquoise: '#2cc5c0',
  cyan: '#1fb8d8',
  aqua: '#2ad4d0',
  blue: '#2360d8',
  navy: '#1f2f6b',
  indigo: '#3b2a8f',
  purple: '#7b33b5',
  violet: '#8a4fd6',
  lavender: '#b39ddb',
  magenta: '#d21f9a',
  pink: '#f27ab0',
  coral: '#f56f5a',
  peach: '#f7b08a',
  brown: '#7a4a25',
  tan: '#c9a27a',
  beige: '#e3d3b0',
  cream: '#f4ecd2',
  black: '#151515',
  white: '#ffffff',
  gray: '#8a8a8a',
  grey: '#8a8a8a',
  silver: '#b8bcc2',
  charcoal: '#36393d',
};

/** Words that say nothing about the design itself. */
const FILLER = new Set(
  (
    'a an the and or of in on at to for with without by from into onto over under is are be it its this that these ' +
    'those my our your me we us i make create design designs draw generate render give show want need please some ' +
    'shirt shirts tshirt t-shirt tee tees hoodie hoodies garment print printed graphic graphics image picture logo ' +
    'style styled looking look like very really just more less bit little big small new version can could would ' +
    'should use using colour color colors colours background front back text word words letters saying says ' +
    'which who what where when how as so but if then than also only one two three instead same now again'
  ).split(' '),
);

/** Motifs the renderer can draw, and words that call for each. */
export const MOTIFS = {
  sun: ['sun', 'sunset', 'sunrise', 'summer', 'sunny', 'solar', 'beach', 'tropical'],
  mountain: ['mountain', 'mountains', 'peak', 'peaks', 'alpine', 'hiking', 'hike', 'camp', 'camping', 'adventure'],
  wave: ['wave', 'waves', 'ocean', 'sea', 'surf', 'surfing', 'water', 'lake', 'river', 'sail', 'sailing'],
  star: ['star', 'stars', 'galaxy', 'space', 'cosmic', 'celestial', 'champion', 'winner', 'rockstar'],
  heart: ['heart', 'hearts', 'love', 'valentine', 'romance', 'kind', 'kindness'],
  moon: ['moon', 'night', 'lunar', 'midnight', 'dream', 'dreams', 'sleep', 'owl'],
  bolt: ['lightning', 'bolt', 'thunder', 'electric', 'energy', 'power', 'storm', 'fast', 'speed'],
  flower: ['flower', 'flowers', 'floral', 'rose', 'roses', 'bloom', 'garden', 'daisy', 'spring', 'botanical'],
  tree: ['tree', 'trees', 'forest', 'pine', 'woods', 'leaf', 'leaves', 'nature', 'plant', 'oak'],
  badge: [] as string[],
} as const;
export type Motif = keyof typeof MOTIFS;

export interface PromptReading {
  /** inks named in the prompt, in the order they appear (duplicates removed) */
  colors: { name: string; hex: string }[];
  /** the words the design is about, in order, at most `maxWords` */
  keyWords: string[];
  motif: Motif;
  /** a stable number derived from the prompt (FNV-1a), for choices the prompt does not make */
  seed: number;
}

const COLOR_KEYS = Object.keys(COLOR_NAMES).sort((a, b) => b.length - a.length);

export function readPrompt(prompt: string, maxWords = 4): PromptReading {
  const text = prompt.toLowerCase().replace(/[’']/g, "'");
  const colors: { name: string; hex: string; at: number }[] = [];
  let rest = ` ${text.replace(/[^a-z0-9'\s-]+/g, ' ')} `;
  for (const name of COLOR_KEYS) {
    const re = new RegExp(`(?<=[\\s-])${name}(?=[\\s-])`, 'g');
    let m: RegExpExecArray | null;
    while ((m = re.exec(rest)) !== null) {
      colors.push({ name, hex: COLOR_NAMES[name]!, at: m.index });
    }
    // blank out what matched so "navy blue" is not read again as "blue"
    rest = rest.replace(re, (s) => ' '.repeat(s.length));
  }
  colors.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const uniqueColors = colors
    .filter((c) => (seen.has(c.hex) ? false : (seen.add(c.hex), true)))
    .map(({ name, hex }) => ({ name, hex }));

  const words = rest
    .split(/[\s-]+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w.length > 1 && !FILLER.has(w) && !/^\d+$/.test(w) && !/^(ish|toned|colored|coloured)$/.test(w));
  const keyWords: string[] = [];
  for (const w of words) if (!keyWords.includes(w) && keyWords.length < maxWords) keyWords.push(w);

  let motif: Motif = 'badge';
  outer: for (const w of text.split(/[^a-z]+/)) {
    for (const [name, calls] of Object.entries(MOTIFS) as [Motif, readonly string[]][]) {
      if (calls.includes(w)) {
        motif = name;
        break outer;
      }
    }
  }
  return { colors: uniqueColors, keyWords, motif, seed: hashString(text.trim()) };
}
