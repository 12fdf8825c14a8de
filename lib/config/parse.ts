// How lib/config.ts and its parts read a variable: the zod value parsers (booleans, bounded integers, durations), the
// error a bad configuration stops the process with, and the secrets generated into DATA_DIR outside production.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export type NodeEnv = 'development' | 'test' | 'production';

/** The output of a group of variables (an object of zod schemas), as a part's mapping function takes it. */
export type EnvOf<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

/** The repository's root (DATA_DIR defaults to its .data). */
export const ROOT = path.resolve(__dirname, '../..');

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** A duration such as `500ms`, `2s`, `15m`, `1h`, `24h`, `1d` (a bare number is milliseconds), parsed to ms. */
export const duration = (def: string, min = 1, max = 30 * 86_400_000) =>
  z
    .string()
    .default(def)
    .transform((v, ctx) => {
      const m = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(v);
      const ms = m ? Number(m[1]) * DURATION_UNITS[m[2] ?? 'ms']! : NaN;
      if (!Number.isSafeInteger(ms) || ms < min || ms > max) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration like 500ms, 2s, 15m, 1h or 1d, from ${min} ms to ${max / 86_400_000} days`,
        });
        return z.NEVER;
      }
      return ms;
    });

/** Largest value of a PostgreSQL integer column (the rate-limit tables count in int4). */
export const INT4_MAX = 2_147_483_647;
/** An optional positive limit that fits those columns; unset means "derived from another setting". */
export const optionalLimit = () => z.coerce.number().int().min(1).max(INT4_MAX).optional();

export class ConfigError extends Error {}

/** In production a variable another one depends on must be set: undefined when that one is unset too. */
export function requiredWith(other: string | undefined, variable: string, because: string): undefined {
  if (other) throw new ConfigError(`Invalid configuration:\n  ${variable}: required in production when ${because}`);
  return undefined;
}

// Outside production a missing TOKEN_ENCRYPTION_KEY (or Stripe webhook secret) is generated once (32 random bytes,
// base64) into DATA_DIR, like APP_SECRET; production must set it when the feature is configured (requiredWith).
export function persistedFile(dataDir: string, env: NodeEnv, name: string, variable: string): string {
  if (env === 'production')
    throw new ConfigError(`Invalid configuration:\n  ${variable}: required in production (32 bytes, base64)`);
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64');
  writeFileSync(file, value, { mode: 0o600 });
  return value;
}

// Outside production a missing APP_SECRET is generated once and kept in DATA_DIR, so signed cursors survive a
// restart without anyone having to invent a secret. Production must set it explicitly.
export function persistedSecret(dataDir: string, env: NodeEnv): string {
  if (env === 'production')
    throw new ConfigError('Invalid configuration:\n  APP_SECRET: required in production (at least 32 characters)');
  const file = path.join(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
