// The template limits and the scanner's tools (lib/templates/limits.ts walks a file with them): the named limits,
// the error a refusal throws (a BadInputError: the API answers 400, the import workflow fails at once), what a scan
// counts, a bounded reader over a section, and the checks every rectangle and decoded byte goes through.
import { BadInputError } from '../errors';

/** The limits a template is held to (docs/templates.md lists them with these numbers). */
export const TEMPLATE_LIMITS = {
  /** width or height of the canvas, of any layer or mask, and of an embedded PSD/PSB or image (px) */
  maxSide: 16_384,
  /** pixels of the canvas, of one layer or mask, and of an embedded document or image */
  maxPixels: 64_000_000,
  /** layers, groups and group ends counted as Photoshop stores them, in the file and in each embedded PSD */
  maxLayers: 2_000,
  /** groups inside groups */
  maxGroupDepth: 32,
  /** embedded files (smart objects' content, lnk2/lnkD/lnk3) in the file, embedded PSDs' own included */
  maxEmbeddedFiles: 64,
  /** a PSD embedded in a PSD embedded in the template is as deep as it is read */
  maxEmbedDepth: 2,
  /** bytes of pixels ag-psd would allocate for the whole file (layers, masks, composite, embedded files), 1 GiB */
  maxDecodedBytes: 1024 ** 3,
} as const;

export type TemplateLimits = { -readonly [K in keyof typeof TEMPLATE_LIMITS]: number };

/** What was wrong, for clients (`details.reason` of the 400). */
export type TemplateLimitReason =
  | 'not_psd'
  | 'truncated'
  | 'corrupt'
  | 'canvas_too_large'
  | 'layer_too_large'
  | 'too_many_layers'
  | 'groups_too_deep'
  | 'too_many_embedded_files'
  | 'embedded_file_too_large'
  | 'too_much_pixel_data';

export class TemplateLimitError extends BadInputError {
  override name = 'TemplateLimitError';
  constructor(
    readonly reason: TemplateLimitReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface TemplateScan {
  format: 'psd' | 'psb';
  width: number;
  height: number;
  bitsPerChannel: number;
  colorMode: number;
  /** layer records of the file (groups and group ends included), embedded documents' not counted */
  layers: number;
  groupDepth: number;
  /** placed layers (smart objects) */
  smartObjects: number;
  embeddedFiles: number;
  /** bytes of pixels ag-psd would allocate reading the file, embedded documents included */
  decodedBytes: number;
}

export const MiB = (n: number) => `${Math.round(n / 1024 ** 2)} MiB`;
export const truncated = (what: string) =>
  new TemplateLimitError('truncated', `The PSD file is truncated or corrupt: ${what} runs past the end of the file`);
export const corrupt = (what: string) => new TemplateLimitError('corrupt', `The PSD file is corrupt: ${what}`);

/** A bounded reader over one section: every read past `end` is a truncated file. */
export class Cursor {
  constructor(
    readonly b: Buffer,
    public pos: number,
    readonly end: number,
    readonly what: string,
  ) {}
  need(n: number, what = this.what): void {
    if (n < 0 || this.pos + n > this.end) throw truncated(what);
  }
  u8 = () => (this.need(1), this.b[this.pos++]!);
  u16 = () => (this.need(2), (this.pos += 2), this.b.readUInt16BE(this.pos - 2));
  i16 = () => (this.need(2), (this.pos += 2), this.b.readInt16BE(this.pos - 2));
  u32 = () => (this.need(4), (this.pos += 4), this.b.readUInt32BE(this.pos - 4));
  i32 = () => (this.need(4), (this.pos += 4), this.b.readInt32BE(this.pos - 4));
  /** 8-byte length (PSB); beyond 2^53 is nothing a file of ours can hold */
  u64 = () => {
    const hi = this.u32();
    return hi * 2 ** 32 + this.u32();
  };
  sig = () => (this.need(4), (this.pos += 4), this.b.toString('latin1', this.pos - 4, this.pos));
  skip(n: number, what = this.what): void {
    this.need(n, what);
    this.pos += n;
  }
  /** a sub-section of `len` bytes starting here; this cursor moves past it */
  sub(len: number, what: string): Cursor {
    this.need(len, what);
    const c = new Cursor(this.b, this.pos, this.pos + len, what);
    this.pos += len;
    return c;
  }
  get left() {
    return this.end - this.pos;
  }
}

/** Keys whose length is 8 bytes in a PSB even under the 8BIM signature (as ag-psd reads them). */
export const LARGE_KEYS = new Set([
  'LMsk',
  'Lr16',
  'Lr32',
  'Layr',
  'Mt16',
  'Mt32',
  'Mtrn',
  'Alph',
  'FMsk',
  'lnk2',
  'FEid',
]);
export const LARGE_KEYS_MORE = new Set(['FXid', 'PxSD', 'cinf']);
export const LINKED_FILE_KEYS = new Set(['lnk2', 'lnkD', 'lnk3']);
export const NESTED_LAYER_INFO_KEYS = new Set(['Lr16', 'Lr32', 'Layr']);
export const PLACED_KEYS = new Set(['SoLd', 'PlLd', 'SoLE']);

export interface State {
  limits: TemplateLimits;
  depth: number;
  large: boolean;
  bytesPerChannel: number;
  layers: number;
  groupDepth: number;
  smartObjects: number;
  embedded: { count: number };
  decoded: { bytes: number };
}

export function addDecoded(s: State, bytes: number, what: string): void {
  s.decoded.bytes += bytes;
  if (s.decoded.bytes > s.limits.maxDecodedBytes)
    throw new TemplateLimitError(
      'too_much_pixel_data',
      `The PSD's pixels would take more than ${MiB(s.limits.maxDecodedBytes)} once read (at ${what}): ` +
        'flatten or remove unused layers, or reduce the canvas',
      { maxDecodedBytes: s.limits.maxDecodedBytes },
    );
}

/** A rectangle (canvas, layer, mask) held to maxSide and maxPixels. */
export function checkBox(s: State, w: number, h: number, what: string, reason: TemplateLimitReason): void {
  if (w < 0 || h < 0) throw corrupt(`${what} has a negative size`);
  const { maxSide, maxPixels } = s.limits;
  if (w > maxSide || h > maxSide || w * h > maxPixels)
    throw new TemplateLimitError(
      reason,
      `${what} is ${w}x${h} pixels; templates may be at most ${maxSide} px per side and ` +
        `${maxPixels.toLocaleString('en-US')} pixels`,
      { width: w, height: h, maxSide, maxPixels },
    );
}
