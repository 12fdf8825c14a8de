import { Readable } from 'node:stream';
/** Where uploads, blanks and mockups live. Keys are slash-separated, e.g. `blanks/tee-classic/white-front.jpg`. */
export interface StoredObject {
  body: Buffer;
  contentType: string;
  size: number;
}

/** An object being read as it comes (Storage.getStream). */
export interface StoredStream {
  body: Readable;
  contentType: string;
  size: number;
}

export interface Storage {
  readonly kind: string;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Writes a stream as it comes (a ZIP being written), without holding it whole; visible once complete. */
  putStream?(key: string, body: Readable, contentType: string): Promise<void>;
  /** Returns null when the key does not exist. */
  get(key: string): Promise<StoredObject | null>;
  /** Reads an object as a stream (a large ZIP served without holding it whole); null when the key does not exist. */
  getStream?(key: string): Promise<StoredStream | null>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}

const KEY_RE = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/** Keys come from our own code, but a key built from request input must never walk out of the store. */
export function assertValidKey(key: string): void {
  if (!KEY_RE.test(key) || key.includes('..') || key.length > 512) throw new Error(`invalid storage key: ${key}`);
}

export function contentTypeForKey(key: string): string {
  const ext = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return (
    {
      jpg: 'image/jpeg',
      jpeg: 'image/jpeg',
      png: 'image/png',
      webp: 'image/webp',
      gif: 'image/gif',
      json: 'application/json',
      pdf: 'application/pdf',
      zip: 'application/zip',
    }[ext] ?? 'application/octet-stream'
  );
}

/** Reads an object as a stream: streamed where the driver can, else read whole first. Null when it does not exist. */
export async function getStream(storage: Storage, key: string): Promise<StoredStream | null> {
  if (storage.getStream) return storage.getStream(key);
  const obj = await storage.get(key);
  return obj && { body: Readable.from([obj.body]), contentType: obj.contentType, size: obj.size };
}

/** Stores a stream: streamed where the driver can, else collected first. */
export async function putStream(storage: Storage, key: string, body: Readable, contentType: string): Promise<void> {
  if (storage.putStream) return storage.putStream(key, body, contentType);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  await storage.put(key, Buffer.concat(chunks), contentType);
}
