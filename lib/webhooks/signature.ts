// Signing of outbound webhooks, and the matching verification for receivers (and our tests).
//
// Scheme (documented for receivers in the README):
//   X-Mockup-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=<…previous secret…>]
// The HMAC key is the whole secret string (`whsec_…`) as UTF-8. Signing the timestamp with the body stops a
// captured request being replayed later with a fresh timestamp; several v1 entries let a receiver keep working
// across a secret rotation whichever secret it has configured.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Mockup-Signature';
export const TIMESTAMP_HEADER = 'X-Mockup-Timestamp';
export const DELIVERY_ID_HEADER = 'X-Mockup-Delivery-Id';
export const EVENT_HEADER = 'X-Mockup-Event';
export const SIGNATURE_SCHEME = 'v1';
/** Receivers should refuse signatures older (or newer) than this; 5 minutes absorbs ordinary clock skew. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** `whsec_` + 32 bytes from the CSPRNG in hex. */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('hex');
}

/** Hex HMAC-SHA256 of `<t>.<body>`; the body is hashed as the exact bytes sent. */
export function computeSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The signature header value for a body, with one v1 per secret (current first). */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string | Buffer): string {
  if (secrets.length === 0) throw new Error('signatureHeader needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error('timestamp must be whole unix seconds');
  return [`t=${timestamp}`, ...secrets.map((s) => `${SIGNATURE_SCHEME}=${computeSignature(s, timestamp, body)}`)].join(
    ',',
  );
}

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

/** Parses `t=…,v1=…,v1=…`; unknown schemes are ignored so a future v2 does not break old receivers. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | null {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === SIGNATURE_SCHEME) {
      if (!/^[0-9a-f]{64}$/.test(value)) return null;
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return null;
  return { timestamp, signatures };
}

export type VerifyResult =
  | { valid: true; timestamp: number }
  | {
      valid: false;
      reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch';
    };

export interface VerifyOptions {
  /** The raw request body exactly as received: verify before any JSON parsing or re-serialization. */
  body: string | Buffer;
  /** The X-Mockup-Signature header value. */
  header: string | null | undefined;
  /** Your signing secret; pass two during your own migration to a rotated secret. */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** Current time in ms (tests). */
  now?: number;
}

/** Verifies a webhook request the way receivers should: timestamp within tolerance and a v1 HMAC that matches. */
export function verifyWebhookSignature(opts: VerifyOptions): VerifyResult {
  if (!opts.header) return { valid: false, reason: 'missing_header' };
  const parsed = parseSignatureHeader(opts.header);
  if (!parsed) return { valid: false, reason: 'malformed_header' };
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSec = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(nowSec - parsed.timestamp) > tolerance) return { valid: false, reason: 'timestamp_out_of_tolerance' };
  const secrets = typeof opts.secret === 'string' ? [opts.secret] : opts.secret;
  for (const secret of secrets) {
    const expected = Buffer.from(computeSignature(secret, parsed.timestamp, opts.body), 'hex');
    // Every candidate is compared in constant time; lengths are equal because the parser only accepts 64 hex.
    for (const sig of parsed.signatures)
      if (timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return { valid: true, timestamp: parsed.timestamp };
  }
  return { valid: false, reason: 'signature_mismatch' };
}
