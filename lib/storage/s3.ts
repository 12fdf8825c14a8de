// S3-compatible object storage (AWS S3, MinIO, Cloudflare R2, ...) through the official AWS SDK for JavaScript v3:
// the credential provider chain (environment, shared files, SSO, web identity, ECS task and EC2 instance roles)
// when no static keys are configured, request checksums, retries with backoff, regional endpoints, and multipart
// upload (`@aws-sdk/lib-storage`) for objects larger than one part.
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { assertValidKey, contentTypeForKey, type Storage, type StoredObject, type StoredStream } from './types';

export interface S3Options {
  bucket: string;
  region: string;
  /** e.g. http://minio:9000; default: AWS's endpoint for the region. */
  endpoint?: string;
  /** Static credentials; without them the SDK's default provider chain finds credentials (roles, SSO, ...). */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** `${endpoint}/${bucket}/${key}` instead of `${bucket}.${endpoint host}/${key}` (MinIO and most self-hosted). */
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `mockups/` to share a bucket. */
  prefix?: string;
  /** Per-request time limit (default 30 s). */
  timeoutMs?: number;
  /** Attempts per call, the SDK's standard retry strategy with backoff (default 3). */
  maxAttempts?: number;
  /**
   * Objects larger than this go as a multipart upload in parts of this size, up to 4 parts at a time (default
   * 8 MiB; S3's minimum part size is 5 MiB). Each part is retried on its own; a failed upload is aborted.
   */
  partSize?: number;
}

/** Default multipart part size: objects up to 8 MiB go as one PUT. */
export const S3_PART_SIZE = 8 * 1024 * 1024;

export class S3Error extends Error {
  override readonly name = 'S3Error';
  constructor(
    readonly status: number | undefined,
    readonly code: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export class S3Storage implements Storage {
  readonly kind = 's3';
  readonly client: S3Client;

  constructor(private readonly opts: S3Options) {
    if (!BUCKET_RE.test(opts.bucket)) throw new Error(`invalid S3 bucket name: ${opts.bucket}`);
    this.client = new S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle ?? false,
      credentials: opts.accessKeyId
        ? {
            accessKeyId: opts.accessKeyId,
            secretAccessKey: opts.secretAccessKey ?? '',
            sessionToken: opts.sessionToken,
          }
        : undefined,
      maxAttempts: opts.maxAttempts ?? 3,
      requestHandler: { requestTimeout: opts.timeoutMs ?? 30_000, connectionTimeout: 5_000 },
    });
  }

  private key(key: string): string {
    assertValidKey(key);
    return `${this.opts.prefix ?? ''}${key}`;
  }

  /** An SDK error as S3Error, e.g. `S3 PUT k.png failed: HTTP 403 SignatureDoesNotMatch: ...`. */
  private fail(err: unknown, what: string): never {
    if (err instanceof S3ServiceException) {
      const status = err.$metadata?.httpStatusCode;
      throw new S3Error(
        status,
        err.name,
        `S3 ${what} failed: HTTP ${status ?? '?'} ${err.name}${err.message ? `: ${err.message}` : ''}`,
        { cause: err },
      );
    }
    throw err;
  }

  private static notFound(err: unknown): boolean {
    return (
      err instanceof S3ServiceException &&
      (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404)
    );
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    return this.upload(key, body, contentType);
  }

  /** A stream goes up in parts as it comes (multipart above one part). */
  async putStream(key: string, body: Readable, contentType: string): Promise<void> {
    return this.upload(key, body, contentType);
  }

  private async upload(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    try {
      // Keys are never rewritten (new content gets a new key), so anything reading the bucket may cache forever.
      // Upload sends one PutObject for a body up to one part, and a multipart upload (aborted on failure) above it.
      await new Upload({
        client: this.client,
        params: {
          Bucket: this.opts.bucket,
          Key: this.key(key),
          Body: body,
          ContentType: contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        },
        partSize: Math.max(5 * 1024 * 1024, this.opts.partSize ?? S3_PART_SIZE),
        queueSize: 4,
        leavePartsOnError: false,
      }).done();
    } catch (err) {
      this.fail(err, `PUT ${key}`);
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
      const body = Buffer.from((await out.Body?.transformToByteArray()) ?? new Uint8Array());
      // Content-Type from the key, exactly as local disk does, so both drivers serve identical responses.
      return { body, contentType: contentTypeForKey(key), size: body.length };
    } catch (err) {
      if (S3Storage.notFound(err)) return null;
      this.fail(err, `GET ${key}`);
    }
  }

  async getStream(key: string): Promise<StoredStream | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
      // in Node the SDK's body is the response's stream, read as the client reads it
      if (!(out.Body instanceof Readable)) throw new Error(`GET ${key}: the response body is not a Node stream`);
      return { body: out.Body, contentType: contentTypeForKey(key), size: out.ContentLength ?? 0 };
    } catch (err) {
      if (S3Storage.notFound(err)) return null;
      this.fail(err, `GET ${key}`);
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
      return true;
    } catch (err) {
      if (S3Storage.notFound(err)) return false;
      this.fail(err, `HEAD ${key}`);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
    } catch (err) {
      if (S3Storage.notFound(err)) return;
      this.fail(err, `DELETE ${key}`);
    }
  }

  /** Creates the bucket when it does not exist (development and tests; production buckets are provisioned). */
  async ensureBucket(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
      return false;
    } catch (err) {
      if (!S3Storage.notFound(err)) this.fail(err, `HEAD bucket ${this.opts.bucket}`);
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.opts.bucket }));
      return true;
    } catch (err) {
      if (err instanceof S3ServiceException && /BucketAlready(OwnedByYou|Exists)/.test(err.name)) return false;
      this.fail(err, `CREATE bucket ${this.opts.bucket}`);
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
