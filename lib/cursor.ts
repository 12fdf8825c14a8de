// Opaque, tamper-proof pagination cursors: base64url(JSON) + "." + HMAC-SHA256 over it with APP_SECRET.
// A cursor names the last item seen and the filter it was issued for, so it cannot be replayed on another listing.
import { createHmac, timingSafeEqual } from 'node:crypto';

function sign(payload: string, secret: string, scope: string): Buffer {
  return createHmac('sha256', secret).update(`${scope}\n${payload}`).digest().subarray(0, 16);
}

export function encodeCursor(value: Record<string, unknown>, secret: string, scope: string): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${sign(payload, secret, scope).toString('base64url')}`;
}

/** Returns the cursor's value, or null when it is malformed, forged or from another scope. */
export function decodeCursor<T = Record<string, unknown>>(cursor: string, secret: string, scope: string): T | null {
  if (cursor.length > 512) return null;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(cursor);
  if (!m) return null;
  const expected = sign(m[1]!, secret, scope);
  const given = Buffer.from(m[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const value = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;
  } catch {
    return null;
  }
}
