// JSON request bodies that carry an image as base64 (upload's and analyze's `imageData`). At the 10 MB limit such a
// body is a ~14 MB string: JSON.parse plus base64 validation and decoding cost the event loop 100 ms or more, so
// large bodies are parsed and decoded on a worker thread and the decoded bytes are transferred back, not copied.
import path from 'node:path';
import { decodeBase64Image } from './data-url';
import { isImageError, type ImageErrorReason } from './errors';
import { WorkerPool, WorkerPoolBusyError } from './worker-pool';

export interface ImageJsonInput {
  raw: Uint8Array;
  /** The property holding the base64 image. */
  field: string;
  maxBytes?: number;
}

export type ImageJsonResult =
  | {
      kind: 'ok';
      /** The parsed body; when `field` held a string it is replaced by the placeholder IMAGE_PLACEHOLDER. */
      body: unknown;
      /** The decoded image, when `field` held a valid base64 string. */
      image?: Uint8Array;
      /** Why `field` could not be decoded, when it held a string that is not a usable base64 image. */
      imageError?: { reason: ImageErrorReason; message: string; details?: Record<string, unknown> };
    }
  | { kind: 'malformed_json' }
  /** Everything but the image is bigger than any valid body, or the parse ran out of the worker's memory or time. */
  | { kind: 'too_complex' };

/**
 * Bytes a body may hold besides the base64 image (the other fields of upload and analyze are a few short values):
 * larger bodies are refused before their structure is cloned back to the event loop.
 */
export const MAX_NON_IMAGE_JSON_BYTES = 64 * 1024;

/** Stands in for the base64 string in the parsed body, so schemas can still check that a string was sent. */
export const IMAGE_PLACEHOLDER = '<image data>';

/** Pure: parse and decode. Used on the worker, and inline for small bodies. */
export function parseImageJson({ raw, field, maxBytes }: ImageJsonInput): ImageJsonResult {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    return { kind: 'malformed_json' };
  }
  const value =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : null;
  const imageChars = typeof value === 'string' ? value.length : 0;
  if (raw.byteLength - imageChars > MAX_NON_IMAGE_JSON_BYTES) return { kind: 'too_complex' };
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { kind: 'ok', body };
  const obj = body as Record<string, unknown>;
  if (typeof value !== 'string' || value.length === 0) return { kind: 'ok', body };
  obj[field] = IMAGE_PLACEHOLDER;
  try {
    const bytes = decodeBase64Image(value, maxBytes);
    // A fresh, unpooled buffer, so it can be transferred to the other thread.
    const image = new Uint8Array(bytes.length);
    image.set(bytes);
    return { kind: 'ok', body: obj, image };
  } catch (err) {
    if (!isImageError(err)) throw err;
    return { kind: 'ok', body: obj, imageError: { reason: err.reason, message: err.message, details: err.details } };
  }
}

/** Below this size parsing inline costs less than the hop to a worker. */
export const INLINE_JSON_BYTES = 256 * 1024;

let pool: WorkerPool<ImageJsonInput, ImageJsonResult> | undefined;

export function imageJsonPool(): WorkerPool<ImageJsonInput, ImageJsonResult> {
  pool ??= new WorkerPool({
    file: path.join(__dirname, `json-image-worker${path.extname(__filename)}`),
    name: 'JSON image decoding',
    inline: parseImageJson,
  });
  return pool;
}

/** Parses a raw JSON body, decoding `field` as a base64 image; large bodies are handled off the event loop. */
export async function decodeImageJson(raw: Buffer, field: string, maxBytes?: number): Promise<ImageJsonResult> {
  if (raw.length < INLINE_JSON_BYTES) return parseImageJson({ raw, field, maxBytes });
  // Moved, not copied: the body buffer is not used again on this thread. A buffer that shares its memory with
  // others (Node's small-buffer pool) is copied first, since transferring it would detach its neighbors.
  const own =
    raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? new Uint8Array(raw.buffer) : new Uint8Array(raw);
  try {
    return await imageJsonPool().run({ raw: own, field, maxBytes }, [own.buffer as ArrayBuffer]);
  } catch (err) {
    if (err instanceof WorkerPoolBusyError) throw err;
    // The worker ran out of its heap (ERR_WORKER_OUT_OF_MEMORY) or time on this body: the body is at fault.
    return { kind: 'too_complex' };
  }
}
