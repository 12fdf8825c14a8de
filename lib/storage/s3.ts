// S3-compatible object storage (AWS S3, MinIO, Cloudflare R2, Backblaze B2, ...) over plain fetch, with AWS Signature
// Version 4 written out here: no AWS SDK is installed, and the four calls we need (PUT, GET, HEAD, DELETE of one
// object) are small. The signer follows the AWS SigV4 specification and is tested against AWS's published examples.
import { createHash, createHmac } from 'node:crypto';
import { contentTypeForKey, assertValidKey, type Storage, type StoredObject } from './types';

// --- Signature Version 4 ------------------------------------------------------------------------------------------

export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export const sha256Hex = (data: string | Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is %XX (uppercase); '/' optionally kept. */
export function uriEncode(value: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The canonical path: each segment decoded once and re-encoded strictly (S3 does not normalize `.` or `//`). */
export function canonicalPath(pathname: string): string {
  if (!pathname) return '/';
  return pathname
    .split('/')
    .map((seg) => {
      try {
        return uriEncode(decodeURIComponent(seg));
      } catch {
        return uriEncode(seg);
      }
    })
    .join('/');
}

/** Canonical query string: parameters sorted by encoded name, then value; `?lifecycle` becomes `lifecycle=`. */
export function canonicalQuery(search: string): string {
  const q = search.startsWith('?') ? search.slice(1) : search;
  if (!q) return '';
  const pairs = q
    .split('&')
    .filter(Boolean)
    .map((part) => {
      const eq = part.indexOf('=');
      const rawName = eq < 0 ? part : part.slice(0, eq);
      const rawValue = eq < 0 ? '' : part.slice(eq + 1);
      const dec = (s: string) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      };
      return [uriEncode(dec(rawName)), uriEncode(dec(rawValue))] as const;
    });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  url: URL;
  /** Headers to send and sign (any case); `host` and `x-amz-date` are added. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body, or UNSIGNED_PAYLOAD. */
  payloadHash: string;
  region: string;
  service: string;
  credentials: Credentials;
  date: Date;
}

export interface Signed {
  /** Every header to send, Authorization included (lower-case names). */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

/** `20130524T000000Z` */
export const amzDate = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request") */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

export function signV4(input: SignInput): Signed {
  const stamp = amzDate(input.date);
  const day = stamp.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = v;
  headers.host = input.url.host;
  headers['x-amz-date'] = stamp;
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;

  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalPath(input.url.pathname),
    canonicalQuery(input.url.search),
    canonicalHeaders,
    signedHeaders,
    input.payloadHash,
  ].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac(
    'sha256',
    signingKey(input.credentials.secretAccessKey, day, input.region, input.service),
  )
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign, signature };
}

// --- Storage ------------------------------------------------------------------------------------------------------

export interface S3Options extends Credentials {
  bucket: string;
  region: string;
  /** e.g. https://s3.eu-central-1.amazonaws.com or http://minio:9000; default AWS for the region. */
  endpoint?: string;
  /** `${endpoint}/${bucket}/${key}` instead of `${bucket}.${endpoint host}/${key}` (MinIO and most self-hosted). */
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `mockups/` to share a bucket. */
  prefix?: string;
  /** Per-request time limit. */
  timeoutMs?: number;
  /** Injectable for tests. */
  fetch?: typeof fetch;
  now?: () => Date;
}

export class S3Error extends Error {
  override readonly name = 'S3Error';
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

export class S3Storage implements Storage {
  readonly kind = 's3';
  private readonly endpoint: URL;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly opts: S3Options) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(opts.bucket))
      throw new Error(`invalid S3 bucket name: ${opts.bucket}`);
    this.endpoint = new URL(opts.endpoint ?? `https://s3.${opts.region}.amazonaws.com`);
    this.fetchImpl = opts.fetch ?? fetch;
  }

  /** The object's URL, path-style or virtual-hosted-style; the key is encoded per segment. */
  objectUrl(key: string): URL {
    assertValidKey(key);
    const path = uriEncode(`${this.opts.prefix ?? ''}${key}`, true);
    const base = this.endpoint.pathname.replace(/\/+$/, '');
    const url = new URL(this.endpoint.href);
    if (this.opts.forcePathStyle) {
      url.pathname = `${base}/${this.opts.bucket}/${path}`;
    } else {
      url.hostname = `${this.opts.bucket}.${this.endpoint.hostname}`;
      url.pathname = `${base}/${path}`;
    }
    return url;
  }

  private async send(
    method: string,
    key: string,
    body?: Buffer,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const url = this.objectUrl(key);
    const payloadHash = body ? sha256Hex(body) : EMPTY_SHA256;
    const signed = signV4({
      method,
      url,
      headers: { ...headers, 'x-amz-content-sha256': payloadHash },
      payloadHash,
      region: this.opts.region,
      service: 's3',
      credentials: this.opts,
      date: this.opts.now?.() ?? new Date(),
    });
    // fetch derives Host from the URL itself (and refuses to have it set).
    const { host: _host, ...sendHeaders } = signed.headers;
    return this.fetchImpl(url, {
      method,
      headers: sendHeaders,
      body: body ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : undefined,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
    });
  }

  private async fail(res: Response, what: string): Promise<never> {
    const text = await res.text().catch(() => '');
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
    const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1];
    throw new S3Error(
      res.status,
      code,
      `S3 ${what} failed: HTTP ${res.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`,
    );
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    // Keys are never rewritten (new content gets a new key), so anything reading the bucket directly may cache forever.
    const res = await this.send('PUT', key, body, {
      'content-type': contentType,
      'cache-control': 'public, max-age=31536000, immutable',
    });
    if (!res.ok) await this.fail(res, `PUT ${key}`);
    await res.arrayBuffer();
  }

  async get(key: string): Promise<StoredObject | null> {
    const res = await this.send('GET', key);
    if (res.status === 404) {
      await res.arrayBuffer();
      return null;
    }
    if (!res.ok) await this.fail(res, `GET ${key}`);
    const body = Buffer.from(await res.arrayBuffer());
    // Content-Type from the key, exactly as local disk does, so both drivers serve identical responses.
    return { body, contentType: contentTypeForKey(key), size: body.length };
  }

  async exists(key: string): Promise<boolean> {
    const res = await this.send('HEAD', key);
    await res.arrayBuffer();
    if (res.status === 404) return false;
    if (!res.ok) throw new S3Error(res.status, undefined, `S3 HEAD ${key} failed: HTTP ${res.status}`);
    return true;
  }

  async delete(key: string): Promise<void> {
    const res = await this.send('DELETE', key);
    if (!res.ok && res.status !== 404) await this.fail(res, `DELETE ${key}`);
    await res.arrayBuffer().catch(() => undefined);
  }
}
