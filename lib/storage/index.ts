import path from 'node:path';
import type { Config } from '../config';
import { LocalDiskStorage } from './local-disk';
import type { Storage } from './types';

export * from './types';
export { LocalDiskStorage };

export function createStorage(config: Config): Storage {
  return new LocalDiskStorage(path.join(config.dataDir, 'files'));
}

/** Public URL of a stored file, served by the API under /files/. */
export function fileUrl(config: Pick<Config, 'publicBaseUrl'>, key: string): string {
  return `${config.publicBaseUrl}/files/${key}`;
}
