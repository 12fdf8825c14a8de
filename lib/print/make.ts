// Making a print file once: the file for a source and garment size is looked up first, else rendered (render.ts),
// stored under keys named for the source, zone and size, and recorded; a concurrent or retried make that loses the
// race to record keeps the first record (the keys are the same, and so are the bytes). The caller gives the lookup,
// the record and the design's bytes (the API and the worker each from their own db/ and loaders).
import { randomSuffix } from '../ids';
import type { Storage } from '../storage';
import type { PreflightReport } from './preflight';
import { renderPrintFile, type PrintFile } from './render';

export interface PrintSpec {
  /** 'gen:<id>' or 'chat:<job>:<index>' */
  source: string;
  zone: string;
  zoneIn: { widthIn: number; heightIn: number };
  placement: { x: number; y: number; scale: number; rotation: number };
  garmentHex: string | null;
  size: string;
}

/** Where a stored print file (and its underbase) is, and its size in pixels and inches. */
export interface StoredPrintFile {
  storageKey: string;
  underbaseKey: string | null;
  widthPx: number;
  heightPx: number;
  dpi: number;
  widthIn: number;
  heightIn: number;
}

export interface MadeFile extends StoredPrintFile {
  id: string;
  designBox: PrintFile['designBox'];
  preflight: PreflightReport;
}

export interface MakeDeps<Row> {
  storage: Storage;
  find: () => Promise<Row | undefined>;
  record: (made: MadeFile) => Promise<Row>;
  loadDesign: () => Promise<Buffer>;
}

/** A print file's source id: 'gen:<generation id>' or 'chat:<job id>:<mockup index>' (print_files.source). */
export const printSourceId = {
  generation: (generationId: string) => `gen:${generationId}`,
  chat: (jobId: string, mockupIndex: number) => `chat:${jobId}:${mockupIndex}`,
};

/** The mockup index of a chat source id, null for a generation's. */
export function sourceMockupIndex(source: string): number | null {
  const m = /^chat:[^:]+:(\d+)$/.exec(source);
  return m ? Number(m[1]) : null;
}

/** A stored file's name: the last part of its storage key (what the print file's fileName and the ZIP name). */
export const storedFileName = (key: string) => key.slice(key.lastIndexOf('/') + 1);

/** A storage-safe name part: letters, digits, dot, dash (a size such as "2XL", a zone "left-chest"). */
const part = (s: string) => s.replace(/[^a-z0-9.-]+/gi, '_').slice(0, 40) || '_';

/** Where a source's print file for a size is kept; its file name names the zone and the size. */
export function printFileKey(spec: Pick<PrintSpec, 'source' | 'zone' | 'size'>, underbase = false): string {
  const name = spec.source.replace(/^gen:|^chat:/, '').replace(/:/g, '-');
  return `print-files/${part(name)}/${part(name)}-${part(spec.zone)}-${part(spec.size)}${underbase ? '-underbase' : ''}.png`;
}

export async function makePrintFile<Row>(deps: MakeDeps<Row>, spec: PrintSpec): Promise<{ row: Row; made: boolean }> {
  const found = await deps.find();
  if (found) return { row: found, made: false };
  const f = await renderPrintFile({
    design: await deps.loadDesign(),
    zone: spec.zoneIn,
    size: spec.size,
    placement: spec.placement,
    garmentHex: spec.garmentHex,
  });
  const storageKey = printFileKey(spec);
  const underbaseKey = f.underbase ? printFileKey(spec, true) : null;
  await deps.storage.put(storageKey, f.png, 'image/png');
  if (f.underbase && underbaseKey) await deps.storage.put(underbaseKey, f.underbase, 'image/png');
  const row = await deps.record({
    id: `prf_${Date.now()}_${randomSuffix(10)}`,
    storageKey,
    underbaseKey,
    widthPx: f.widthPx,
    heightPx: f.heightPx,
    dpi: f.dpi,
    widthIn: f.widthIn,
    heightIn: f.heightIn,
    designBox: f.designBox,
    preflight: f.preflight,
  });
  return { row, made: true };
}
