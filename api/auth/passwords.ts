import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Gate, GateFullError } from '../../lib/gate';

// OWASP's minimum for scrypt: N=2^17, r=8, p=1. The parameters are stored with each hash so they can be raised
// later without breaking existing accounts.
const PARAMS = { N: 2 ** 17, r: 8, p: 1 };
const KEYLEN = 64;

/**
 * Each check takes 128 MiB and a libuv pool thread (shared with sharp, file reads and DNS) for ~100-300 ms: at most
 * 2 run at once per process, 32 more may wait; beyond that the caller is refused (PasswordWorkBusyError, a 503),
 * so a flood of logins cannot stall every other route or exhaust memory.
 */
export const MAX_CONCURRENT_PASSWORD_CHECKS = 2;
export const MAX_WAITING_PASSWORD_CHECKS = 32;
const gate = new Gate(MAX_CONCURRENT_PASSWORD_CHECKS, MAX_WAITING_PASSWORD_CHECKS);

export class PasswordWorkBusyError extends Error {
  override readonly name = 'PasswordWorkBusyError';
}

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return gate
    .run(
      () =>
        new Promise<Buffer>((resolve, reject) =>
          scryptCb(password.normalize('NFKC'), salt, keylen, { ...opts, maxmem: 256 * 1024 * 1024 }, (err, key) =>
            err ? reject(err) : resolve(key),
          ),
        ),
    )
    .catch((err: unknown) => {
      if (err instanceof GateFullError) throw new PasswordWorkBusyError('Too many sign-ins at once');
      throw err;
    });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}

// A fixed hash for unknown emails, so a login for an unknown account costs the same time as a wrong password.
let dummy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword('not-a-real-password-' + randomBytes(8).toString('hex'));
  await verifyPassword(password, await dummy);
}

const COMMON = new Set([
  'password',
  'password1',
  'password12',
  'password123',
  'password1234',
  '1234567890',
  '12345678910',
  'qwertyuiop',
  'iloveyou123',
  'letmein123',
  'welcome123',
  'admin12345',
  'qwerty12345',
  'abc1234567',
  'passw0rd123',
  '1q2w3e4r5t',
  'football123',
  'changeme123',
]);

/** Returns why a password is too weak, or null. Length matters most; a short character-class rule rejects the obvious. */
export function passwordWeakness(password: string, email: string): string | null {
  if (password.length < 10) return 'must be at least 10 characters';
  if (password.length > 200) return 'must be at most 200 characters';
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  if (classes < 2) return 'must mix at least two of: lowercase, uppercase, digits, symbols';
  if (COMMON.has(password.toLowerCase())) return 'is too common';
  const local = email.split('@')[0]?.toLowerCase() ?? '';
  if (local.length >= 4 && password.toLowerCase().includes(local)) return 'must not contain your email name';
  if (/^(.)\1+$/.test(password)) return 'must not repeat one character';
  return null;
}
