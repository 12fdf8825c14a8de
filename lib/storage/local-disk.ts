import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomSuffix } from '../ids';
import { assertValidKey, contentTypeForKey, type Storage, type StoredObject, type StoredStream } from './types';

/** Files under one directory. Writes go to a temp file and are renamed into place, so a reader never sees half a file. */
export class LocalDiskStorage implements Storage {
  readonly kind = 'local';
  constructor(private readonly root: string) {}

  private file(key: string): string {
    assertValidKey(key);
    return path.join(this.root, key);
  }

  /** The content type is not stored: on disk it follows from the key's extension (contentTypeForKey). */
  async put(key: string, body: Buffer, _contentType?: string): Promise<void> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomSuffix(8)}.tmp`;
    await writeFile(tmp, body);
    await rename(tmp, target);
  }

  async putStream(key: string, body: Readable, _contentType?: string): Promise<void> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomSuffix(8)}.tmp`;
    try {
      await pipeline(body, createWriteStream(tmp));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await rename(tmp, target);
  }

  async get(key: string): Promise<StoredObject | null> {
    try {
      const body = await readFile(this.file(key));
      return { body, contentType: contentTypeForKey(key), size: body.length };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async getStream(key: string): Promise<StoredStream | null> {
    const file = this.file(key);
    try {
      const st = await stat(file);
      if (!st.isFile()) return null;
      // files are replaced by rename, never changed in place: the stream reads the file that was stat'ed
      const body = createReadStream(file);
      await new Promise<void>((resolve, reject) => body.once('open', () => resolve()).once('error', reject));
      return { body, contentType: contentTypeForKey(key), size: st.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.file(key))).isFile();
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }
}
