import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// OWASP's minimum for scrypt: N=2^17, r=8, p=1. The parameters are stored with each hash so they can be raised
// later without breaking existing accounts.
const PARAMS = { N: 2 ** 17, r: 8, p: 1 };
const KEYLEN = 64;

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, keylen, { ...opts, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
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
