// Verifying a generation callback, following docs/webhooks.md ("Verifying the signature"): HMAC-SHA256 keyed with
// the whole secret (whsec_…) over `<t>.<raw body>`, compared in constant time with every v1, t within 5 minutes.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Mockup-Signature';
export const DELIVERY_ID_HEADER = 'X-Mockup-Delivery-Id';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyResult =
  | { valid: true; timestamp: number }
  | {
      valid: false;
      reason: 'missing header' | 'malformed header' | 'timestamp out of tolerance' | 'no matching signature';
    };

export interface VerifyOptions {
  /** the raw request body exactly as received (do not parse and re-serialize the JSON first) */
  body: Uint8Array | string;
  /** the X-Mockup-Signature header */
  header: string | null | undefined;
  /** your signing secret, `whsec_…` */
  secret: string;
  /** epoch ms; default now */
  now?: number;
  toleranceSeconds?: number;
}

/** Checks a callback's signature. Parse the body only after `valid` is true. */
export function verifyWebhookSignature(opts: VerifyOptions): VerifyResult {
  if (!opts.header) return { valid: false, reason: 'missing header' };
  let t: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of opts.header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) signatures.push(Buffer.from(v, 'hex'));
  }
  if (t === undefined || signatures.length === 0) return { valid: false, reason: 'malformed header' };
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return { valid: false, reason: 'timestamp out of tolerance' };
  const expected = createHmac('sha256', opts.secret).update(`${t}.`).update(opts.body).digest();
  return signatures.some((s) => timingSafeEqual(s, expected))
    ? { valid: true, timestamp: t }
    : { valid: false, reason: 'no matching signature' };
}
