// A prepared template as JSON metadata plus raw buffers (what storage and the worker's cache keep): every typed
// array in the structure becomes a buffer, referenced from the metadata by key.
import { BadInputError } from '../errors';
import type { PreparedTemplate } from './prepare';

/**
 * The prepared data's format, stored with every prepared template (lib/template-import/prepared-store.ts): bump it
 * whenever prepareTemplate's output (or this serialization) changes, so that a template prepared by an older engine is
 * prepared again from its source on its next render instead of rendering the old way. test/unit/templates-prepared-
 * format.test.ts records digests of the output for this number and fails until it is bumped. 1: the unversioned data
 * ('templates-prepared-v1') before issue 32's clipping bases, pass-through groups, group fill and clipped smart objects.
 * 2: before issue 32's mip levels that keep an odd last column or row (reduced smart objects' right and bottom edges).
 */
export const PREPARED_FORMAT = 3;

type Typed = Uint8Array | Uint8ClampedArray | Float32Array;
const KINDS = { u8: Uint8Array, u8c: Uint8ClampedArray, f32: Float32Array } as const;

function kindOf(v: Typed): keyof typeof KINDS {
  return v instanceof Float32Array ? 'f32' : v instanceof Uint8ClampedArray ? 'u8c' : 'u8';
}

export function serializePrepared(p: PreparedTemplate): { meta: unknown; buffers: Record<string, Buffer> } {
  const buffers: Record<string, Buffer> = {};
  let n = 0;
  const enc = (v: unknown): unknown => {
    if (ArrayBuffer.isView(v)) {
      const t = v as Typed;
      const key = `b${n++}`;
      buffers[key] = Buffer.from(t.buffer, t.byteOffset, t.byteLength);
      return { $buf: key, kind: kindOf(t) };
    }
    if (Array.isArray(v)) return v.map(enc);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, enc(x)]));
    return v;
  };
  return { meta: { format: PREPARED_FORMAT, template: enc(p) }, buffers };
}

export function deserializePrepared(meta: unknown, buffers: Record<string, Buffer>): PreparedTemplate {
  const m = meta as { format?: unknown; template?: unknown };
  if (!m || m.format !== PREPARED_FORMAT) throw new BadInputError('not a prepared template of this engine version');
  const dec = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(dec);
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.$buf === 'string') {
        const b = buffers[o.$buf];
        const Ctor = KINDS[o.kind as keyof typeof KINDS];
        if (!b || !Ctor) throw new BadInputError(`prepared template buffer ${o.$buf} missing`);
        // copy: the typed array needs its own aligned memory
        const copy = new ArrayBuffer(b.byteLength);
        new Uint8Array(copy).set(b);
        return new Ctor(copy);
      }
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, dec(x)]));
    }
    return v;
  };
  return dec(m.template) as PreparedTemplate;
}
