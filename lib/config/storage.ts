// Where files are kept (local disk or an S3-compatible bucket) and how much an account may keep (docs/storage.md).
import { z } from 'zod';
import { bool, duration, int, type EnvOf } from './parse';

export const storageEnv = {
  // File storage: local disk under DATA_DIR/files (default) or an S3-compatible bucket.
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: z.url().optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1')
    .default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_SESSION_TOKEN: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*\/$/i, 'must be a key prefix ending in / such as mockups/')
    .optional(),

  // Storage per account (docs/storage.md): the bytes an account's uploads may take (original, thumbnail
  // and prepared levels; 1 GiB), and how long prepared levels no generation used are kept.
  STORAGE_QUOTA_BYTES: int(1024 ** 3, 0),
  PREPARED_LEVELS_RETENTION: duration('30d', 3600_000, 3650 * 86_400_000),
  // How long after a new upload the worker analyses it (docs/uploads-and-analysis.md#the-latest-analysis): after the
  // client's burst of requests, not beside them; 0: at once.
  UPLOAD_ANALYSIS_DELAY: duration('5s', 0, 3600_000),
};

export function storageConfig(e: EnvOf<typeof storageEnv>) {
  return {
    storage: {
      driver: e.STORAGE_DRIVER,
      s3: {
        endpoint: e.S3_ENDPOINT,
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        sessionToken: e.S3_SESSION_TOKEN,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
        prefix: e.S3_PREFIX,
      },
    },
    /** Storage per account (docs/storage.md). */
    uploads: {
      /** Bytes an account's uploads may take: originals, thumbnails and prepared levels. */
      quotaBytes: e.STORAGE_QUOTA_BYTES,
      /** Prepared levels no generation used for this long are deleted by the maintenance sweep. */
      preparedLevelsRetentionMs: e.PREPARED_LEVELS_RETENTION,
      /** A new upload's analysis workflow starts this long after the upload (Temporal's start delay). */
      analysisDelayMs: e.UPLOAD_ANALYSIS_DELAY,
    },
  };
}
