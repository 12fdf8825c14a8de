// Hostile-file checks for PSD and PSB templates, run on the raw bytes BEFORE ag-psd reads them (ag-psd allocates
// every layer's pixels, inflates ZIP channels whole and trusts the lengths it reads). The scan walks the file's
// sections the way Photoshop's format lays them out (header, colour data, resources, layer and mask info with each
// layer's record and channel data, global additional info with the embedded files, the composite), reading only
// headers and lengths, and refuses with a TemplateLimitError (a BadInputError: the API answers 400, the import
// workflow fails at once) anything that is not a PSD, is cut short, or would need more than the named limits (limits-core.ts).
// It returns what it counted, including the bytes of pixels ag-psd would allocate.
import { inflateSync } from 'node:zlib';
import { describeUnsupported, detectFormat, inspectImage, isImageError } from '../images';
import {
  TEMPLATE_LIMITS,
  type TemplateLimits,
  TemplateLimitError,
  type TemplateScan,
  truncated,
  corrupt,
  Cursor,
  LARGE_KEYS,
  LARGE_KEYS_MORE,
  LINKED_FILE_KEYS,
  NESTED_LAYER_INFO_KEYS,
  PLACED_KEYS,
  type State,
  addDecoded,
  checkBox,
} from './limits-core';

export {
  TEMPLATE_LIMITS,
  TemplateLimitError,
  type TemplateLimitReason,
  type TemplateLimits,
  type TemplateScan,
} from './limits-core';

/** Scans a PSD or PSB (a template, or a document embedded in one). */
function scanDocument(b: Buffer, s: State, label: string): Omit<TemplateScan, 'embeddedFiles' | 'decodedBytes'> {
  if (b.length < 4 || b.toString('latin1', 0, 4) !== '8BPS') {
    const image = detectFormat(b);
    const what = image ? `a ${image.format.toUpperCase()} image` : describeUnsupported(b);
    throw new TemplateLimitError(
      'not_psd',
      `${label} is not a Photoshop file (it looks like ${what}): upload a .psd or .psb saved by Photoshop`,
      { detected: image?.format ?? what },
    );
  }
  const c = new Cursor(b, 4, b.length, 'the header');
  const version = c.u16();
  if (version !== 1 && version !== 2) throw corrupt(`unknown version ${version} (1 is PSD, 2 is PSB)`);
  c.skip(6);
  const channels = c.u16();
  const height = c.u32();
  const width = c.u32();
  const bits = c.u16();
  const colorMode = c.u16();
  if (channels < 1 || channels > 16) throw corrupt(`${channels} channels (1 to 16 are possible)`);
  if (![1, 8, 16, 32].includes(bits)) throw corrupt(`${bits} bits per channel`);
  if (width === 0 || height === 0) throw corrupt('the canvas has no pixels');
  checkBox(s, width, height, `${label}'s canvas`, 'canvas_too_large');
  s.large = version === 2;
  s.bytesPerChannel = Math.max(1, bits / 8);

  const len = () => (s.large ? c.u64() : c.u32());
  c.sub(c.u32(), 'the colour mode data');
  c.sub(c.u32(), 'the image resources');
  const layerAndMask = c.sub(len(), 'the layer and mask information');
  scanLayerAndMask(layerAndMask, s, label);
  // the composite Photoshop saved: compression, then the channels
  const composite = new Cursor(b, c.pos, b.length, 'the composite image');
  if (composite.left > 0) {
    const compression = composite.u16();
    addDecoded(s, width * height * 4 * s.bytesPerChannel, `${label}'s composite image`);
    if (compression === 1) checkRle(composite, height, channels, s.large, composite.left, 'the composite image');
    else if (compression === 0) composite.need(width * height * channels * s.bytesPerChannel);
  }
  return {
    format: s.large ? 'psb' : 'psd',
    width,
    height,
    bitsPerChannel: bits,
    colorMode,
    layers: s.layers,
    groupDepth: s.groupDepth,
    smartObjects: s.smartObjects,
  };
}

function scanLayerAndMask(c: Cursor, s: State, label: string): void {
  if (c.left === 0) return;
  const infoLen = s.large ? c.u64() : c.u32();
  scanLayerInfo(c.sub(infoLen, 'the layer information'), s, label);
  if (c.left >= 4) c.sub(c.u32(), 'the global layer mask'); // global layer mask info
  scanAdditionalInfo(c, s, label, 4);
}

/** Additional info blocks (`8BIM`/`8B64`, key, length, data) until the section ends. */
function scanAdditionalInfo(
  c: Cursor,
  s: State,
  label: string,
  round: number,
  onKey?: (key: string, d: Cursor) => void,
) {
  while (c.left >= 12) {
    while (c.left > 0 && c.b[c.pos] === 0) c.pos++; // some writers pad between blocks
    if (c.left < 12) break;
    const sig = c.sig();
    if (sig !== '8BIM' && sig !== '8B64') throw corrupt(`an additional information block has the signature "${sig}"`);
    const key = c.sig();
    const u64 = sig === '8B64' || (s.large && (LARGE_KEYS.has(key) || LARGE_KEYS_MORE.has(key)));
    const len = u64 ? c.u64() : c.u32();
    const d = c.sub(len, `the "${key}" block`);
    if (len % round && c.left >= round - (len % round)) c.skip(round - (len % round));
    if (NESTED_LAYER_INFO_KEYS.has(key)) scanLayerInfo(d, s, label);
    else if (LINKED_FILE_KEYS.has(key)) scanLinkedFiles(d, s);
    onKey?.(key, d);
  }
}

function scanLayerInfo(c: Cursor, s: State, label: string): void {
  if (c.left < 2) return;
  const count = Math.abs(c.i16());
  s.layers += count;
  if (s.layers > s.limits.maxLayers)
    throw new TemplateLimitError(
      'too_many_layers',
      `${label} has ${s.layers} layers (groups count twice); templates may have at most ${s.limits.maxLayers}`,
      { layers: s.layers, maxLayers: s.limits.maxLayers },
    );
  const records: LayerRecord[] = [];
  for (let i = 0; i < count; i++) {
    const top = c.i32();
    const left = c.i32();
    const bottom = c.i32();
    const right = c.i32();
    const w = right - left;
    const h = bottom - top;
    checkBox(s, w, h, `Layer ${i + 1} of ${label}`, 'layer_too_large');
    const n = c.u16();
    if (n > 56) throw corrupt(`layer ${i + 1} has ${n} channels`);
    const channels = [];
    for (let k = 0; k < n; k++) channels.push({ id: c.i16(), length: s.large ? c.u64() : c.u32() });
    if (c.sig() !== '8BIM') throw corrupt(`layer ${i + 1}'s record has no blend mode signature`);
    c.skip(8); // blend mode key, opacity, clipping, flags, filler
    const extra = c.sub(c.u32(), `layer ${i + 1}'s record`);
    const record: LayerRecord = { w, h, channels, divider: 0, masks: {} };
    scanLayerExtra(extra, s, label, i, record);
    records.push(record);
    addDecoded(s, w * h * 4 * s.bytesPerChannel, `layer ${i + 1}`);
  }
  // nesting, as ag-psd builds the tree: from the top of the stack (the last record) down
  let depth = 0;
  for (let i = records.length - 1; i >= 0; i--) {
    const t = records[i]!.divider;
    if (t === 1 || t === 2) {
      depth++;
      if (depth > s.groupDepth) s.groupDepth = depth;
      if (depth > s.limits.maxGroupDepth)
        throw new TemplateLimitError(
          'groups_too_deep',
          `${label} nests groups more than ${s.limits.maxGroupDepth} deep, the limit for templates`,
          { maxGroupDepth: s.limits.maxGroupDepth },
        );
    } else if (t === 3) depth = Math.max(0, depth - 1);
  }
  // channel image data, layer after layer, in record order
  records.forEach((r, i) => {
    for (const ch of r.channels) {
      const what = `layer ${i + 1}'s pixel data`;
      if (ch.length === 1) throw corrupt(`${what} has a channel of 1 byte`);
      const d = c.sub(ch.length, what);
      if (ch.length === 0) continue;
      const compression = d.u16();
      const isMask = ch.id === -2 || ch.id === -3;
      const w = isMask ? (r.masks[ch.id]?.w ?? 0) : r.w;
      const h = isMask ? (r.masks[ch.id]?.h ?? 0) : r.h;
      checkChannel(d, compression, w, h, s, what);
    }
  });
}

interface LayerRecord {
  w: number;
  h: number;
  channels: { id: number; length: number }[];
  /** lsct/lsdk section divider type: 1, 2 a group's start (open, closed), 3 its end; 0 a layer */
  divider: number;
  /** the user mask (-2) and the vector-derived mask (-3) sizes */
  masks: Record<number, { w: number; h: number }>;
}

function scanLayerExtra(c: Cursor, s: State, label: string, i: number, r: LayerRecord): void {
  const masks = r.masks;
  const mask = c.sub(c.u32(), `layer ${i + 1}'s mask data`);
  if (mask.left >= 16) {
    const [t, l, bt, rt] = [mask.i32(), mask.i32(), mask.i32(), mask.i32()];
    masks[-2] = { w: rt - l, h: bt - t };
    if (mask.left >= 20) {
      mask.skip(4);
      const [t2, l2, b2, r2] = [mask.i32(), mask.i32(), mask.i32(), mask.i32()];
      masks[-3] = { w: r2 - l2, h: b2 - t2 };
    }
  }
  for (const m of Object.values(masks)) {
    checkBox(s, m.w, m.h, `The mask of layer ${i + 1} of ${label}`, 'layer_too_large');
    addDecoded(s, m.w * m.h * 4 * s.bytesPerChannel, `layer ${i + 1}'s mask`);
  }
  c.sub(c.u32(), `layer ${i + 1}'s blending ranges`);
  const nameLen = c.u8();
  c.skip(Math.min(c.left, nameLen + ((4 - ((nameLen + 1) % 4)) % 4)));
  // the name's padding is not always written: find the next signature as ag-psd does
  while (c.left > 4 && !['8BIM', '8B64'].includes(c.b.toString('latin1', c.pos, c.pos + 4))) c.pos++;
  let placed = false;
  scanAdditionalInfo(c, s, label, 2, (key, d) => {
    if ((key === 'lsct' || key === 'lsdk') && d.end - d.pos >= 4) r.divider = d.b.readUInt32BE(d.pos);
    if (PLACED_KEYS.has(key)) placed = true;
  });
  if (placed) s.smartObjects++;
}

/** One channel's data after its compression word: the sizes it claims must fit in its bytes and in the layer. */
function checkChannel(d: Cursor, compression: number, w: number, h: number, s: State, what: string): void {
  const expected = w * h * s.bytesPerChannel;
  if (compression === 0) return; // raw: ag-psd reads what is there into the layer's own buffer
  if (compression === 1) return checkRle(d, h, 1, s.large, d.left, what);
  if (compression === 2 || compression === 3) {
    // a ZIP channel is inflated whole by ag-psd: inflate it here with the layer's size as the ceiling
    try {
      inflateSync(d.b.subarray(d.pos, d.end), { maxOutputLength: Math.max(1, expected) });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        throw new TemplateLimitError(
          'too_much_pixel_data',
          `${what} inflates to more than its layer's ${w}x${h} pixels`,
        );
      throw corrupt(`${what} is not valid ZIP data`);
    }
    return;
  }
  throw corrupt(`${what} has an unknown compression ${compression}`);
}

/** RLE: a table of byte counts (rows x channels), then the rows: the counts must add up within the data. */
function checkRle(d: Cursor, rows: number, channels: number, large: boolean, available: number, what: string): void {
  const table = rows * channels * (large ? 4 : 2);
  d.need(table, `${what}'s row table`);
  let sum = 0;
  for (let k = 0; k < rows * channels; k++) sum += large ? d.u32() : d.u16();
  if (sum > available - table) throw truncated(what);
}

/** Embedded files (liFD records): each one's data is checked as a PSD/PSB (recursively) or an image. */
function scanLinkedFiles(c: Cursor, s: State): void {
  while (c.left > 8) {
    const size = c.u64();
    const rec = c.sub(size, 'an embedded file');
    if (size % 4) c.skip(Math.min(c.left, 4 - (size % 4)));
    const type = rec.sig();
    const version = rec.u32();
    s.embedded.count++;
    if (s.embedded.count > s.limits.maxEmbeddedFiles)
      throw new TemplateLimitError(
        'too_many_embedded_files',
        `The PSD embeds more than ${s.limits.maxEmbeddedFiles} files, the limit for templates`,
        { maxEmbeddedFiles: s.limits.maxEmbeddedFiles },
      );
    if (type !== 'liFD') continue; // linked to a file outside the PSD, or an alias: no data here
    rec.skip(rec.u8()); // id
    rec.skip(rec.u32() * 2); // name (UTF-16)
    rec.skip(8); // file type, creator
    const dataSize = rec.u64();
    const data = locateData(rec, dataSize, version);
    scanEmbedded(data, s);
  }
}

/** Where an liFD record's data starts: after a descriptor we do not parse, before a tail whose size we know. */
function locateData(rec: Cursor, dataSize: number, version: number): Buffer {
  const tailFixed = (version >= 6 ? 8 : 0) + (version >= 7 ? 1 : 0);
  rec.need(dataSize, 'an embedded file');
  for (let at = rec.pos; at + dataSize <= rec.end; at++) {
    const after = at + dataSize;
    if (version < 5) {
      if (after === rec.end || (after <= rec.end && after + 3 >= rec.end)) return rec.b.subarray(at, after);
      continue;
    }
    if (after + 4 > rec.end) break;
    const tail = 4 + rec.b.readUInt32BE(after) * 2 + tailFixed;
    if (after + tail === rec.end) return rec.b.subarray(at, after);
  }
  throw corrupt('an embedded file record does not hold the data it declares');
}

function scanEmbedded(data: Buffer, s: State): void {
  if (data.length >= 4 && data.toString('latin1', 0, 4) === '8BPS') {
    if (s.depth + 1 > s.limits.maxEmbedDepth)
      throw new TemplateLimitError(
        'embedded_file_too_large',
        `The PSD embeds documents more than ${s.limits.maxEmbedDepth} levels deep, the limit for templates`,
        { maxEmbedDepth: s.limits.maxEmbedDepth },
      );
    const inner: State = { ...s, depth: s.depth + 1, layers: 0, groupDepth: 0, smartObjects: 0 };
    scanDocument(data, inner, 'An embedded document');
    return;
  }
  if (!detectFormat(data)) return; // another kind of file (a vector smart object): ag-psd keeps its bytes as they are
  try {
    const img = inspectImage(data, { maxBytes: data.length, maxPixels: s.limits.maxPixels });
    addDecoded(s, img.width * img.height * 4, 'an embedded image');
  } catch (err) {
    if (!isImageError(err)) throw err;
    throw new TemplateLimitError('embedded_file_too_large', `An embedded image cannot be used: ${err.message}`);
  }
}

/**
 * Checks a template's bytes against the limits without decoding any pixels. Throws TemplateLimitError; returns what
 * it counted.
 */
export function checkTemplateFile(bytes: Buffer, limits: Partial<TemplateLimits> = {}): TemplateScan {
  const s: State = {
    limits: { ...TEMPLATE_LIMITS, ...limits },
    depth: 0,
    large: false,
    bytesPerChannel: 1,
    layers: 0,
    groupDepth: 0,
    smartObjects: 0,
    embedded: { count: 0 },
    decoded: { bytes: 0 },
  };
  const doc = scanDocument(bytes, s, 'The file');
  return { ...doc, embeddedFiles: s.embedded.count, decodedBytes: s.decoded.bytes };
}
