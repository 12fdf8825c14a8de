import path from 'node:path';
import { ConfigError, type Config } from '../config';
import { LocalDiskStorage } from './local-disk';
import { S3Storage } from './s3';
import type { Storage } from './types';

export * from './types';
export { LocalDiskStorage, S3Storage };

/**
 * STORAGE_DRIVER=local (default): files under DATA_DIR/files, for one machine. STORAGE_DRIVER=s3: an S3-compatible
 * bucket, so several API and worker machines share the same files. Either way files are served by the /files route.
 */
export function createStorage(config: Pick<Config, 'dataDir' | 'storage'>): Storage {
  if (config.storage.driver === 'local') return new LocalDiskStorage(path.join(config.dataDir, 'files'));
  const s3 = config.storage.s3;
  // Without static keys the AWS SDK's default credential chain is used (instance/task roles, SSO, web identity).
  const missing = [
    ...(s3.bucket ? [] : ['S3_BUCKET: required when STORAGE_DRIVER=s3']),
    ...(!!s3.accessKeyId !== !!s3.secretAccessKey
      ? ['S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither']
      : []),
  ];
  if (missing.length) {
    throw new ConfigError(`Invalid configuration:\n${missing.map((m) => `  ${m}`).join('\n')}`);
  }
  return new S3Storage({
    bucket: s3.bucket!,
    region: s3.region,
    endpoint: s3.endpoint,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    sessionToken: s3.sessionToken,
    forcePathStyle: s3.forcePathStyle,
    prefix: s3.prefix,
  });
}

/** Public URL of a stored file, served by the API under /files/. */
export function fileUrl(config: Pick<Config, 'publicBaseUrl'>, key: string): string {
  return `${config.publicBaseUrl}/files/${key}`;
}
