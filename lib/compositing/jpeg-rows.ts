// Re-encoding only the MCU rows of a JPEG that changed (issue 32, docs/templates.md#render-speed): a baseline JPEG
// (4:2:0, one sequential scan, no restart markers) is Huffman-decoded once (prepareRows) to know where each MCU row
// starts in its bit stream; an image that differs from it only in a band of MCU rows, away from the first and the
// last MCU column, is then encoded as the band alone (the caller's encoder, the same settings) spliced between the
// baseline's bits (encodeRows), byte for byte the JPEG the encoder writes for the whole image.
//
// Why it holds: an MCU's coefficients depend only on its own pixels (DCT, quantization, 4:2:0 downsampling within
// the MCU); the only state across MCUs is each component's DC predictor (the previous block's DC, 0 at the start
// of the scan). The band encoded alone starts with predictors 0, so only its first MCU's bits differ from the full
// image's; that MCU is the baseline's (the first column is untouched), so its bits in the full image are the
// baseline's, and its length with predictors 0 is known from the decode. The band is encoded with one untouched
// MCU row below the changed ones: its bits are the baseline's (its first MCU's predictor comes from the last column,
// untouched), which finds where the band's data ends before its 1-bit padding; the baseline's bits follow it.
// Pure: no sharp here, the caller passes its encoder. Anything unexpected answers null (the caller encodes fully).

/** The caller's JPEG encoder for raw RGB (3 channels) of `width` x `height`: the same settings for every call. */
export type EncodeRgb = (rgb: Buffer, width: number, height: number) => Promise<Buffer>;

/** A rectangle of changed pixels. */
export type Rect = { x: number; y: number; w: number; h: number };

/** What a baseline JPEG's splices need, made once by prepareRows. */
export interface JpegRows extends Parsed {
  /** The baseline JPEG (its headers are every splice's), and where its last MCU ends in `bits`. */
  jpeg: Buffer;
  dataEnd: number;
  mcuCols: number;
  mcuRows: number;
  /** Per MCU row (bits in `bits`): where it starts (one more: dataEnd), where its first MCU ends, and that first
   * MCU's length when coded with DC predictors 0 (as the first MCU of a scan). */
  rowStart: Float64Array;
  firstEnd: Float64Array;
  firstLen0: Float64Array;
  /** Bytes held, for a cache's bound. */
  bytes: number;
}

/** A JPEG's headers (to the end of SOS), its size, its scan's data unstuffed and its Huffman tables: [DC, AC] per
 * component Y, Cb, Cr, lookups of a 16-bit window ((code length << 8) | symbol, 0: no code). */
export type Parsed = { headerLen: number; sofHeightAt: number; width: number; height: number; bits: Buffer };
type Tables = [Uint16Array, Uint16Array][];

/** The marker segments and scan of a baseline 4:2:0 YCbCr JPEG; null for anything else. */
export function parse(j: Buffer): (Parsed & { tables: Tables }) | null {
  if (j.length < 4 || j[0] !== 0xff || j[1] !== 0xd8) return null;
  const dht = new Map<number, Uint16Array>();
  let sof: { at: number; comps: { id: number; hv: number }[] } | null = null;
  let p = 2;
  while (p + 4 <= j.length) {
    if (j[p] !== 0xff) return null;
    const m = j[p + 1]!;
    const len = j.readUInt16BE(p + 2);
    const s = p + 4;
    const e = p + 2 + len;
    if (e > j.length) return null;
    if (m === 0xc0) {
      if (j[s] !== 8 || j[s + 5] !== 3) return null;
      const comps = [0, 1, 2].map((c) => ({ id: j[s + 6 + c * 3]!, hv: j[s + 7 + c * 3]! }));
      if (comps[0]!.hv !== 0x22 || comps[1]!.hv !== 0x11 || comps[2]!.hv !== 0x11) return null;
      sof = { at: s + 1, comps };
    } else if (m === 0xc4) {
      for (let q = s; q < e;) {
        const tc = j[q]!;
        const counts = j.subarray(q + 1, q + 17);
        let n = 0;
        for (const c of counts) n += c;
        dht.set(tc, lookup(counts, j.subarray(q + 17, q + 17 + n)));
        q += 17 + n;
      }
    } else if (m === 0xda) {
      if (!sof || j[s] !== 3 || j[s + 7] !== 0 || j[s + 8] !== 63 || j[s + 9] !== 0) return null;
      const tables: Tables = [];
      for (let c = 0; c < 3; c++) {
        if (j[s + 1 + c * 2] !== sof.comps[c]!.id) return null;
        const t = j[s + 2 + c * 2]!;
        const dc = dht.get(t >> 4);
        const ac = dht.get(0x10 | (t & 15));
        if (!dc || !ac) return null;
        tables.push([dc, ac]);
      }
      const bits = j[j.length - 2] === 0xff && j[j.length - 1] === 0xd9 && unstuff(j.subarray(e, j.length - 2));
      if (!bits) return null;
      const [height, width] = [j.readUInt16BE(sof.at), j.readUInt16BE(sof.at + 2)];
      return { headerLen: e, sofHeightAt: sof.at, height, width, tables, bits };
    } else if (m === 0xdd || (m >= 0xc1 && m <= 0xcf)) return null; // restarts, other frame types
    p = e;
  }
  return null;
}

/** A 16-bit lookup of a Huffman table: for each 16-bit window, (code length << 8) | symbol. */
function lookup(counts: Buffer, symbols: Buffer): Uint16Array {
  const t = new Uint16Array(65536);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < counts[len - 1]!; i++, k++) {
      const lo = code << (16 - len);
      t.fill((len << 8) | symbols[k]!, lo, lo + (1 << (16 - len)));
      code++;
    }
    code <<= 1;
  }
  return t;
}

/** Entropy-coded data without its byte stuffing (0xFF 0x00 -> 0xFF), 4 bytes of 0xFF after it; null at a marker. */
export function unstuff(src: Buffer): Buffer | null {
  const out = Buffer.allocUnsafe(src.length + 4);
  let o = 0;
  let i = 0;
  for (;;) {
    const f = src.indexOf(0xff, i);
    const end = f < 0 ? src.length : f + 1;
    o += src.copy(out, o, i, end);
    if (f < 0) break;
    if (src[f + 1] !== 0) return null;
    i = f + 2;
  }
  out.fill(0xff, o, o + 4);
  return out.subarray(0, o);
}

/** Byte stuffing: every 0xFF followed by 0x00, written into `dst` at `at`; the end. */
function stuff(src: Buffer, dst: Buffer, at: number): number {
  let o = at;
  let i = 0;
  for (;;) {
    const f = src.indexOf(0xff, i);
    if (f < 0) return o + src.copy(dst, o, i);
    o += src.copy(dst, o, i, f + 1);
    dst[o++] = 0;
    i = f + 1;
  }
}

/** Bits of `b` from bit `pos` (n <= 16), read through a 24-bit window. */
const win = (b: Buffer, pos: number) => {
  const i = pos >>> 3;
  return ((b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!) >>> 0;
};
const peek16 = (b: Buffer, pos: number) => (win(b, pos) >>> (8 - (pos & 7))) & 0xffff;
const take = (b: Buffer, pos: number, n: number) => (win(b, pos) >>> (24 - (pos & 7) - n)) & ((1 << n) - 1);
/** The magnitude category of a DC difference (bits it needs). */
const category = (d: number) => (d === 0 ? 0 : 32 - Math.clz32(Math.abs(d)));

/**
 * Decodes a scan's blocks, calling `block(c, dc, k)` per block (component 0-2, its DC value, its index in the MCU)
 * and `mcu(pos)` at each MCU's start; answers the bit where the data ends, or -1 on an invalid code. Exported for
 * the tests (coefficients too, through `coef`).
 */
export function decodeScan(
  bits: Buffer,
  tables: Tables,
  mcus: number,
  mcu: (pos: number) => void,
  block: (c: number, dc: number, k: number) => void,
  coef?: (c: number, zz: number, v: number) => void,
): number {
  const pred = [0, 0, 0];
  let pos = 0;
  const limit = bits.length * 8;
  for (let m = 0; m < mcus; m++) {
    mcu(pos);
    for (let k = 0; k < 6; k++) {
      const c = k < 4 ? 0 : k - 3;
      const [dct, act] = tables[c]!;
      let e = dct[peek16(bits, pos)]!;
      if (e === 0) return -1;
      pos += e >> 8;
      let s = e & 0xff;
      let d = 0;
      if (s) {
        d = take(bits, pos, s);
        if (d < 1 << (s - 1)) d -= (1 << s) - 1;
        pos += s;
      }
      pred[c]! += d;
      block(c, pred[c]!, k);
      coef?.(c, 0, pred[c]!);
      for (let z = 1; z < 64;) {
        e = act[peek16(bits, pos)]!;
        if (e === 0) return -1;
        pos += e >> 8;
        const rs = e & 0xff;
        s = rs & 15;
        if (s === 0) {
          if (rs !== 0xf0) break;
          z += 16;
          continue;
        }
        z += rs >> 4;
        let v = take(bits, pos, s);
        if (v < 1 << (s - 1)) v -= (1 << s) - 1;
        pos += s;
        coef?.(c, z, v);
        z++;
      }
      if (pos > limit) return -1;
    }
  }
  return pos;
}

/**
 * Decodes a baseline JPEG of `width` x `height` (made by the encoder the splices will use) once: where each MCU row
 * starts in its bit stream, its first MCU's length with predictors 0. Null when it cannot be spliced (not baseline
 * 4:2:0, restart markers, fewer than 3 MCU rows or columns, an invalid scan).
 */
export function prepareRows(jpeg: Buffer, width: number, height: number): JpegRows | null {
  const p = parse(jpeg);
  if (!p || p.width !== width || p.height !== height) return null;
  const mcuCols = Math.ceil(width / 16);
  const mcuRows = Math.ceil(height / 16);
  if (mcuCols < 3 || mcuRows < 3) return null;
  const bits = p.bits;
  const rowStart = new Float64Array(mcuRows + 1);
  const firstEnd = new Float64Array(mcuRows);
  const firstLen0 = new Float64Array(mcuRows);
  // a DC difference's code length per component: its category's Huffman code and the magnitude bits
  const codeLen = p.tables.map(([dc]) => {
    const l = new Float64Array(17).fill(NaN);
    for (let i = 0; i < 65536; i++) if (dc[i]) l[dc[i]! & 15] = dc[i]! >> 8;
    return l;
  });
  const dcLen = (c: number, d: number) => codeLen[c]![category(d)]! + category(d);
  const delta = new Float64Array(mcuRows); // the first MCU's length with predictors 0, less its length as coded
  const pred = [0, 0, 0];
  let m = 0;
  let row = -1;
  const end = decodeScan(
    bits,
    p.tables,
    mcuCols * mcuRows,
    (pos) => {
      if (m % mcuCols === 0) rowStart[++row] = pos;
      else if (m % mcuCols === 1) firstEnd[row] = pos;
      m++;
    },
    (c, dc, k) => {
      // the blocks of a row's first MCU whose predictor comes from the MCU before (m counts this one)
      if (m % mcuCols === 1 && (k === 0 || k >= 4)) delta[row] = delta[row]! + dcLen(c, dc) - dcLen(c, dc - pred[c]!);
      pred[c] = dc;
    },
  );
  // the scan ends in its last byte (then 0-7 bits of padding)
  if (end < 0 || end > bits.length * 8 || end <= bits.length * 8 - 8) return null;
  rowStart[mcuRows] = end;
  for (let r = 0; r < mcuRows; r++) firstLen0[r] = firstEnd[r]! - rowStart[r]! + delta[r]!;
  if (firstLen0.some(Number.isNaN)) return null;
  const { tables: _, ...head } = p;
  const bytes = jpeg.length + bits.length + mcuRows * 24;
  return { ...head, jpeg, dataEnd: end, mcuCols, mcuRows, rowStart, firstEnd, firstLen0, bytes };
}

/** `n` bits of `src` from bit `s` written into `dst` at bit `d` (the bits of dst's byte before `d` kept; whole bytes
 * written, so bits after the end are left undefined for the next write). */
function copyBits(src: Buffer, s: number, n: number, dst: Buffer, d: number): void {
  if (n <= 0) return;
  const dr = d & 7;
  if (dr) {
    // the partial byte first, so the rest is written byte-aligned
    const k = Math.min(8 - dr, n);
    const i = d >>> 3;
    dst[i] = (dst[i]! & ((0xff00 >>> dr) & 0xff)) | (take(src, s, k) << (8 - dr - k));
    s += k;
    d += k;
    n -= k;
    if (n === 0) return;
  }
  const di = d >>> 3;
  const si = s >>> 3;
  const r = s & 7;
  const len = (n + 7) >>> 3;
  if (r === 0) {
    src.copy(dst, di, si, si + len);
    return;
  }
  const l = 8 - r;
  // eight bytes at a time through two 32-bit words, then the rest byte by byte
  let i = 0;
  const last = Math.min(len, src.length - si - 8);
  for (; i + 8 <= last; i += 8) {
    const a = src.readUInt32BE(si + i);
    const b = src.readUInt32BE(si + i + 4);
    const c = src[si + i + 8]!;
    dst.writeUInt32BE(((a << r) | (b >>> (32 - r))) >>> 0, di + i);
    dst.writeUInt32BE(((b << r) | (c >>> l)) >>> 0, di + i + 4);
  }
  for (; i < len; i++) dst[di + i] = ((src[si + i]! << r) | ((src[si + i + 1] ?? 0) >>> l)) & 0xff;
}

/** Whether `n` bits of `a` from `sa` equal those of `b` from `sb`. */
function bitsEqual(a: Buffer, sa: number, b: Buffer, sb: number, n: number): boolean {
  let i = 0;
  for (; i + 16 <= n; i += 16) if (peek16(a, sa + i) !== peek16(b, sb + i)) return false;
  return i === n || take(a, sa + i, n - i) === take(b, sb + i, n - i);
}

/**
 * The MCU rows [a, b) to encode for changes in `rects`: the rows they touch and one untouched row below; [0, 0)
 * when nothing changed; null when a rectangle touches the first or last MCU column, or the untouched row would be
 * the last, partial one (the image's padding) or past the image.
 */
export function rowsFor(rows: JpegRows, rects: readonly Rect[]): [number, number] | null {
  let a = Infinity;
  let last = -1;
  for (const r of rects) {
    if (r.w <= 0 || r.h <= 0) continue;
    if (r.x < 16 || r.x + r.w > (rows.mcuCols - 1) * 16) return null;
    a = Math.min(a, Math.max(0, Math.floor(r.y / 16)));
    last = Math.max(last, Math.floor((r.y + r.h - 1) / 16));
  }
  if (last < 0) return [0, 0];
  return (last + 2) * 16 <= rows.height ? [a, last + 2] : null;
}

/**
 * The JPEG of `band`'s MCU rows [a, b) of the image (encoded alone, by the same encoder as the baseline) spliced
 * into the baseline's; null when it cannot be (other tables or headers, a marker in the data, its end not found
 * exactly once).
 */
export function splice(rows: JpegRows, a: number, b: number, band: Buffer): Buffer | null {
  const { jpeg, headerLen: hl, sofHeightAt: at, bits, rowStart } = rows;
  if (
    band.length <= hl + 2 ||
    band.compare(jpeg, 0, at, 0, at) !== 0 ||
    band.readUInt16BE(at) !== (b - a) * 16 ||
    band.compare(jpeg, at + 2, hl, at + 2, hl) !== 0 ||
    band[band.length - 2] !== 0xff ||
    band[band.length - 1] !== 0xd9
  )
    return null;
  const ub = unstuff(band.subarray(hl, band.length - 2));
  if (!ub || ub.length === 0) return null;
  // where the band's data ends: 0-7 bits of 1-padding after its last row, the baseline's row b - 1
  const first0 = rows.firstLen0[a]!;
  const lastRow = rowStart[b]! - rowStart[b - 1]!;
  const n8 = ub.length * 8;
  let end = -1;
  for (let p = 0; p < 8; p++) {
    if ((ub[ub.length - 1]! & ((1 << p) - 1)) !== (1 << p) - 1) break;
    const t = n8 - p;
    if (t - lastRow < first0 || !bitsEqual(ub, t - lastRow, bits, rowStart[b - 1]!, lastRow)) continue;
    if (end >= 0) return null;
    end = t;
  }
  if (end < 0) return null;
  // the baseline to the end of row a's first MCU, the band after its first MCU, the baseline from row b
  const head = rows.firstEnd[a]!;
  const mid = end - first0;
  const tail = rows.dataEnd - rowStart[b]!;
  const total = head + mid + tail;
  const out = Buffer.allocUnsafe(Math.ceil(total / 8) + 8);
  bits.copy(out, 0, 0, Math.ceil(head / 8));
  copyBits(ub, first0, mid, out, head);
  copyBits(bits, rowStart[b]!, tail, out, head + mid);
  const size = Math.ceil(total / 8);
  if (total & 7) out[size - 1]! |= (1 << (8 - (total & 7))) - 1;
  const data = out.subarray(0, size);
  let ff = 0;
  for (let i = data.indexOf(0xff); i >= 0; i = data.indexOf(0xff, i + 1)) ff++;
  const res = Buffer.allocUnsafe(hl + size + ff + 2);
  jpeg.copy(res, 0, 0, hl);
  const e = stuff(data, res, hl);
  res[e] = 0xff;
  res[e + 1] = 0xd9;
  return res;
}

/**
 * The JPEG of `rgb` (the baseline's size, 3 channels), which differs from the baseline only inside `rects`, as
 * `encode` writes it for the whole image: only the MCU rows the rectangles touch encoded, the rest the baseline's.
 * Null when it cannot be spliced (rowsFor, splice): the caller encodes the whole image.
 */
export async function encodeRows(
  rows: JpegRows,
  rgb: Buffer,
  rects: readonly Rect[],
  encode: EncodeRgb,
): Promise<Buffer | null> {
  const band = rowsFor(rows, rects);
  if (!band) return null;
  const [a, b] = band;
  if (a === b) return Buffer.from(rows.jpeg);
  const row = 16 * rows.width * 3;
  return splice(rows, a, b, await encode(rgb.subarray(a * row, b * row), rows.width, (b - a) * 16));
}
