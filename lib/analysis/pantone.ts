// A small curated table of Pantone solid coated colors with the sRGB approximations Pantone itself publishes for
// screens. These are approximations: a printer matches a real Pantone by swatch book or spectrophotometer, never by
// hex. Matching is by CIEDE2000, so "nearest" follows perception rather than RGB arithmetic.
import { ciede2000, hexToLab, type Lab } from './color';

const TABLE: [name: string, hex: string][] = [
  // yellows and oranges
  ['Yellow C', '#FEDD00'],
  ['Yellow 012 C', '#FFD700'],
  ['100 C', '#F6EB61'],
  ['102 C', '#FCE300'],
  ['109 C', '#FFD100'],
  ['116 C', '#FFCD00'],
  ['123 C', '#FFC72C'],
  ['130 C', '#F2A900'],
  ['137 C', '#FFA300'],
  ['1235 C', '#FFB81C'],
  ['1375 C', '#FF9E1B'],
  ['151 C', '#FF8200'],
  ['1505 C', '#FF6900'],
  ['Orange 021 C', '#FE5000'],
  ['165 C', '#FF671F'],
  ['172 C', '#FA4616'],
  ['7548 C', '#FFC600'],
  ['7406 C', '#F1C400'],
  // reds and pinks
  ['Warm Red C', '#F9423A'],
  ['Red 032 C', '#EF3340'],
  ['485 C', '#DA291C'],
  ['185 C', '#E4002B'],
  ['186 C', '#C8102E'],
  ['187 C', '#A6192E'],
  ['199 C', '#D50032'],
  ['200 C', '#BA0C2F'],
  ['201 C', '#9D2235'],
  ['202 C', '#862633'],
  ['1795 C', '#D22630'],
  ['1805 C', '#AF272F'],
  ['208 C', '#861F41'],
  ['209 C', '#6F263D'],
  ['7427 C', '#97233F'],
  ['7421 C', '#651D32'],
  ['Rubine Red C', '#CE0058'],
  ['Rhodamine Red C', '#E10098'],
  ['212 C', '#F04E98'],
  ['219 C', '#DA1884'],
  // purples
  ['Purple C', '#BB29BB'],
  ['Violet C', '#440099'],
  ['2685 C', '#330072'],
  ['266 C', '#753BBD'],
  ['267 C', '#5F259F'],
  ['268 C', '#582C83'],
  ['269 C', '#512D6D'],
  ['2587 C', '#8246AF'],
  ['2597 C', '#5C068C'],
  // blues
  ['Blue 072 C', '#10069F'],
  ['Reflex Blue C', '#001489'],
  ['Process Blue C', '#0085CA'],
  ['280 C', '#012169'],
  ['281 C', '#00205B'],
  ['282 C', '#041E42'],
  ['286 C', '#0033A0'],
  ['287 C', '#003087'],
  ['288 C', '#002D72'],
  ['293 C', '#003DA5'],
  ['294 C', '#002F6C'],
  ['300 C', '#005EB8'],
  ['301 C', '#004B87'],
  ['2728 C', '#0047BB'],
  ['285 C', '#0072CE'],
  ['279 C', '#418FDE'],
  ['284 C', '#6CACE4'],
  ['292 C', '#69B3E7'],
  ['298 C', '#41B6E6'],
  ['2925 C', '#009CDE'],
  ['2995 C', '#00A9E0'],
  ['3005 C', '#0077C8'],
  ['306 C', '#00B5E2'],
  // teals and greens
  ['312 C', '#00A9CE'],
  ['320 C', '#009CA6'],
  ['327 C', '#00857D'],
  ['3278 C', '#009B77'],
  ['Green C', '#00AB84'],
  ['335 C', '#007B5F'],
  ['347 C', '#009A44'],
  ['348 C', '#00843D'],
  ['349 C', '#046A38'],
  ['354 C', '#00B140'],
  ['355 C', '#009639'],
  ['356 C', '#007A33'],
  ['361 C', '#43B02A'],
  ['368 C', '#78BE20'],
  ['375 C', '#97D700'],
  ['376 C', '#84BD00'],
  ['382 C', '#C4D600'],
  ['3435 C', '#154734'],
  ['7482 C', '#009F4D'],
  ['7739 C', '#319B42'],
  // browns and neutrals
  ['469 C', '#693F23'],
  ['4625 C', '#4F2C1D'],
  ['476 C', '#4E3629'],
  ['468 C', '#DDCBA4'],
  ['7527 C', '#D6D2C4'],
  // grays and blacks
  ['Cool Gray 1 C', '#D9D9D6'],
  ['Cool Gray 3 C', '#C8C9C7'],
  ['Cool Gray 5 C', '#B1B3B3'],
  ['Cool Gray 7 C', '#97999B'],
  ['Cool Gray 9 C', '#75787B'],
  ['Cool Gray 11 C', '#53565A'],
  ['430 C', '#7C878E'],
  ['431 C', '#5B6770'],
  ['432 C', '#333F48'],
  ['7540 C', '#4B4F54'],
  ['426 C', '#25282A'],
  ['Black C', '#2D2926'],
  ['Black 6 C', '#101820'],
];

export interface PantoneColor {
  name: string;
  hex: string;
  lab: Lab;
}

export const PANTONE_TABLE: readonly PantoneColor[] = TABLE.map(([name, hex]) => ({
  name: `PANTONE ${name}`,
  hex,
  lab: hexToLab(hex),
}));

/**
 * Beyond this CIEDE2000 distance the nearest table entry is not a useful suggestion (about the difference between
 * neighboring swatches in the table); the color gets no match rather than a misleading one.
 */
export const PANTONE_MAX_DE = 6;

export interface PantoneMatch extends PantoneColor {
  deltaE: number;
}

export function nearestPantone(lab: Lab, maxDeltaE = PANTONE_MAX_DE): PantoneMatch | null {
  let best: PantoneMatch | null = null;
  for (const p of PANTONE_TABLE) {
    const d = ciede2000(lab, p.lab);
    if (!best || d < best.deltaE) best = { ...p, deltaE: d };
  }
  return best && best.deltaE <= maxDeltaE ? best : null;
}

/** How a match is shown to clients: the swatch name, labeled as an approximation. */
export const pantoneLabel = (m: PantoneMatch) => `${m.name} (approximate)`;
