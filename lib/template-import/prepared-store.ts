// Prepared templates in storage and in memory. At import the engine's prepared template (serializePrepared: JSON
// meta and named raw buffers) is stored once under templates/<id>/: a manifest (prepared.json) naming each buffer's
// key and the format it was prepared in (PREPARED_FORMAT), and the buffers as they are. Renders read it through a
// per-process cache bounded in bytes (least recently used first out), so a ready template is decoded once per worker
// and a render composites only what the design changes; what the render path derives from it (its render plan and
// thumbnail) counts against the same bound. A manifest of an older format (or none: before formats) is prepared again
// from the template's source by the first render that reads it, stored in its place, and rendered.
import { BadInputError } from '../errors';
import { checkTemplateFile } from '../templates/limits';
import { prepareTemplate, type PreparedTemplate } from '../templates/prepare';
import { deserializePrepared, PREPARED_FORMAT, serializePrepared } from '../templates/serialize';
import type { Storage } from '../storage';
import { parseTemplate } from './parse-lazily';
import type { PreparedAgainHook } from './refresh';
import { warmTemplate } from './render';
import { templateKeys } from './types';

interface Manifest {
  /** PREPARED_FORMAT when it was stored; absent before formats */
  format?: number;
  meta: unknown;
  buffers: { name: string; key: string; bytes: number }[];
}

type Serialized = ReturnType<typeof serializePrepared>;

/** Stores serialized buffers, then the manifest naming them (a reader never finds a manifest before its buffers). */
async function storeSerialized(
  storage: Storage,
  templateId: string,
  { meta, buffers }: Serialized,
): Promise<{ key: string; bytes: number; keys: string[] }> {
  const keys = templateKeys(templateId);
  const entries = Object.entries(buffers).map(([name, body], n) => ({
    name,
    key: keys.buffer(n, PREPARED_FORMAT),
    body,
  }));
  await Promise.all(entries.map((e) => storage.put(e.key, e.body, 'application/octet-stream')));
  const manifest: Manifest = {
    format: PREPARED_FORMAT,
    meta,
    buffers: entries.map((e) => ({ name: e.name, key: e.key, bytes: e.body.length })),
  };
  const json = Buffer.from(JSON.stringify(manifest));
  await storage.put(keys.prepared, json, 'application/json');
  const bytes = json.length + entries.reduce((n, e) => n + e.body.length, 0);
  return { key: keys.prepared, bytes, keys: [keys.prepared, ...entries.map((e) => e.key)] };
}

/** Stores a prepared template's buffers and manifest; returns the manifest's key and the bytes stored. */
export function storePrepared(
  storage: Storage,
  templateId: string,
  prepared: PreparedTemplate,
): Promise<{ key: string; bytes: number; keys: string[] }> {
  return storeSerialized(storage, templateId, serializePrepared(prepared));
}

/** The keys a stored prepared template consists of (its manifest and buffers), for deleting them. */
export async function preparedKeys(storage: Storage, manifestKey: string): Promise<string[]> {
  const obj = await storage.get(manifestKey);
  if (!obj) return [];
  const m = JSON.parse(obj.body.toString('utf8')) as Manifest;
  return [manifestKey, ...m.buffers.map((b) => b.key)];
}

/** The template's uploaded file (source.psd or source.psb: the key's extension follows the file's format). */
async function sourceOf(storage: Storage, templateId: string): Promise<{ key: string; body: Buffer } | null> {
  for (const format of ['psd', 'psb'] as const) {
    const key = templateKeys(templateId, format).source;
    const obj = await storage.get(key);
    if (obj) return { key, body: obj.body };
  }
  return null;
}

/**
 * A template whose stored prepared data has another format than this engine's, prepared again from its source the
 * way the import prepares it (the same limits, parser and engine). Data of an older format (or none) is replaced in
 * storage: the new buffers and manifest written (new keys: a format's own), then the buffers only the old manifest
 * named deleted. Data of a newer format (a newer engine's, while an older process still runs) is left as it is and
 * the template prepared for this process alone. A template whose source is gone fails with a BadInputError: no
 * retry brings it back, and its stale data is not rendered.
 */
async function prepareAgain(
  storage: Storage,
  manifestKey: string,
  old: Manifest,
  preparedAgain: PreparedAgainHook | undefined,
): Promise<{ prepared: PreparedTemplate; bytes: number }> {
  const templateId = /^templates\/([^/]+)\/prepared\.json$/.exec(manifestKey)?.[1];
  if (!templateId || templateKeys(templateId).prepared !== manifestKey)
    throw new Error(`${manifestKey} is not a template's prepared manifest`);
  const source = await sourceOf(storage, templateId);
  if (!source)
    throw new BadInputError(
      `Template ${templateId} was prepared by an older engine and its source file is no longer in storage: import it again`,
    );
  checkTemplateFile(source.body);
  const parsed = parseTemplate(source.body);
  const prepared = prepareTemplate(parsed);
  const serialized = serializePrepared(prepared);
  const bytes = Object.values(serialized.buffers).reduce((n, b) => n + b.length, 0);
  if ((old.format ?? 0) > PREPARED_FORMAT) return { prepared, bytes };
  // The preview, thumbnail and fidelity made again by this engine before the new manifest is written: if this fails
  // the manifest still names the old format, so the next render prepares again and refreshes them then.
  const written = preparedAgain ? await preparedAgain(templateId, prepared, parsed.photoshopComposite) : [];
  const stored = await storeSerialized(storage, templateId, serialized);
  const named = new Set(stored.keys);
  // the template deleted meanwhile (its source with it): what was just written goes too
  if (!(await storage.exists(source.key))) {
    await Promise.allSettled([...stored.keys, ...written].map((k) => storage.delete(k)));
    throw new BadInputError(`Template ${templateId} was deleted`);
  }
  await Promise.allSettled(old.buffers.filter((b) => !named.has(b.key)).map((b) => storage.delete(b.key)));
  return { prepared, bytes };
}

async function loadPrepared(
  storage: Storage,
  manifestKey: string,
  preparedAgain: PreparedAgainHook | undefined,
): Promise<{ prepared: PreparedTemplate; bytes: number }> {
  const obj = await storage.get(manifestKey);
  if (!obj) throw new Error(`prepared template ${manifestKey} is missing from storage`);
  const m = JSON.parse(obj.body.toString('utf8')) as Manifest;
  if (m.format !== PREPARED_FORMAT) return prepareAgain(storage, manifestKey, m, preparedAgain);
  const bodies = await Promise.all(
    m.buffers.map(async (b) => {
      const o = await storage.get(b.key);
      if (!o) throw new Error(`prepared template buffer ${b.key} is missing from storage`);
      return [b.name, o.body] as const;
    }),
  );
  return {
    prepared: deserializePrepared(m.meta, Object.fromEntries(bodies)),
    bytes: bodies.reduce((n, [, body]) => n + body.length, 0),
  };
}

export interface PreparedTemplateCache {
  /** The prepared template stored under `manifestKey` (keyed by it: a template's key never changes). */
  get(manifestKey: string): Promise<PreparedTemplate>;
  /** Keeps one just prepared (the import's worker renders it next without reading it back). */
  put(manifestKey: string, prepared: PreparedTemplate, bytes: number): void;
  delete(manifestKey: string): void;
  readonly bytes: number;
}

/**
 * A cache of at most `maxBytes` of prepared templates; concurrent gets of one template load it once. With
 * `preparedAgain`, a template prepared again also gets its preview, thumbnail and fidelity made again before its new
 * manifest is written (lib/template-import/refresh.ts outputsRefresher). With `jpegRows` (the worker's renders at the
 * template's size), each template's baseline JPEG rows are made with it too (render.ts warmTemplate).
 */
export function createPreparedTemplateCache(
  storage: Storage,
  maxBytes: number,
  opts: { preparedAgain?: PreparedAgainHook; jpegRows?: boolean } = {},
): PreparedTemplateCache {
  const entries = new Map<string, { prepared: PreparedTemplate; bytes: number }>();
  const loading = new Map<string, Promise<PreparedTemplate>>();
  let total = 0;
  const evict = () => {
    for (const [k, e] of entries) {
      if (total <= maxBytes || entries.size <= 1) break;
      entries.delete(k);
      total -= e.bytes;
    }
  };
  const cache: PreparedTemplateCache = {
    async get(key) {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key); // most recently used last
        entries.set(key, hit);
        return hit.prepared;
      }
      let p = loading.get(key);
      if (!p) {
        p = loadPrepared(storage, key, opts.preparedAgain).then(({ prepared, bytes }) => {
          cache.put(key, prepared, bytes);
          return prepared;
        });
        loading.set(key, p);
        p.finally(() => loading.delete(key)).catch(() => {});
      }
      return p;
    },
    put(key, prepared, bytes) {
      cache.delete(key);
      if (bytes > maxBytes) return;
      const entry = { prepared, bytes };
      entries.set(key, entry);
      total += bytes;
      evict();
      // what renders keep with it (render.ts warmTemplate: the render plan, the baseline's thumbnail and JPEG rows),
      // made once after this turn (a render that comes first makes it itself) and counted against the bound
      setImmediate(() => {
        if (entries.get(key) !== entry) return;
        warmTemplate(prepared, { jpegRows: opts.jpegRows })
          .then((extra) => {
            if (entries.get(key) !== entry) return;
            entry.bytes += extra;
            total += extra;
            evict();
          })
          .catch(() => {});
      });
    },
    delete(key) {
      const e = entries.get(key);
      if (!e) return;
      entries.delete(key);
      total -= e.bytes;
    },
    get bytes() {
      return total;
    },
  };
  return cache;
}
