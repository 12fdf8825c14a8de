// The Part A rate limits per key and per account (docs/rate-limits.md), and how the limiter behaves when its store
// (PostgreSQL) is slow or down.
import { z } from 'zod';
import { int, INT4_MAX, optionalLimit, type EnvOf } from './parse';

/** Account-wide ceilings default to this many times the per-key limit: three keys at full speed, then they share. */
export const ACCOUNT_FACTOR = 3;
/** Limits go to PostgreSQL as `integer`. */
const accountLimit = (own: number | undefined, perKey: number) => own ?? Math.min(INT4_MAX, ACCOUNT_FACTOR * perKey);

export const rateLimitEnv = {
  // Part A limits per API key (spec "Limits"); tests lower them. Windows are fixed: they start at a
  // key's first request and last a minute or an hour.
  RATE_LIMIT_PER_MINUTE: int(60, 1),
  RATE_LIMIT_PER_HOUR: int(1000, 1),
  RATE_LIMIT_CONCURRENCY: int(10, 1),
  RATE_LIMIT_GENERATE_PER_MINUTE: int(30, 1),
  RATE_LIMIT_ANALYZE_PER_MINUTE: int(60, 1),
  RATE_LIMIT_GARMENTS_PER_MINUTE: int(60, 1),
  RATE_LIMIT_UPLOAD_PER_MINUTE: int(20, 1),
  // POST /preview has its own budget only: it does not count against the key's minute and hour windows.
  RATE_LIMIT_PREVIEW_PER_MINUTE: int(120, 1),
  // Account-wide ceilings, on top of the per-key limits: an account's keys (and its dashboard session)
  // share these. Unset, each is 3 times its per-key counterpart (180/min, 3000/h, 30 concurrent, generate 90/min,
  // ...). Concurrent analyses per account default to the per-key concurrency (10): one key keeps the spec's 10.
  RATE_LIMIT_ACCOUNT_PER_MINUTE: optionalLimit(),
  RATE_LIMIT_ACCOUNT_PER_HOUR: optionalLimit(),
  RATE_LIMIT_ACCOUNT_CONCURRENCY: optionalLimit(),
  RATE_LIMIT_ACCOUNT_GENERATE_PER_MINUTE: optionalLimit(),
  RATE_LIMIT_ACCOUNT_ANALYZE_PER_MINUTE: optionalLimit(),
  RATE_LIMIT_ACCOUNT_GARMENTS_PER_MINUTE: optionalLimit(),
  RATE_LIMIT_ACCOUNT_UPLOAD_PER_MINUTE: optionalLimit(),
  RATE_LIMIT_ACCOUNT_PREVIEW_PER_MINUTE: optionalLimit(),
  RATE_LIMIT_ACCOUNT_ANALYZE_CONCURRENCY: optionalLimit(),
  // A concurrency slot is a lease in PostgreSQL, renewed while its request runs; the slots of an instance that
  // died come back after this long.
  RATE_LIMIT_LEASE_SECONDS: int(30, 3, 3600),
  // How long a limiter query may take before the limiter treats the database as unavailable.
  RATE_LIMIT_STORE_TIMEOUT_MS: int(500, 10, 60_000),
  // Database unavailable: `local` enforces the same limits per process (fails open to a weaker limit), `closed`
  // answers 503 service_unavailable.
  RATE_LIMIT_ON_STORE_ERROR: z.enum(['local', 'closed']).default('local'),
};

export function rateLimitConfig(e: EnvOf<typeof rateLimitEnv>) {
  const endpointPerMinute = {
    generate: e.RATE_LIMIT_GENERATE_PER_MINUTE,
    analyze: e.RATE_LIMIT_ANALYZE_PER_MINUTE,
    garments: e.RATE_LIMIT_GARMENTS_PER_MINUTE,
    upload: e.RATE_LIMIT_UPLOAD_PER_MINUTE,
    preview: e.RATE_LIMIT_PREVIEW_PER_MINUTE,
  };
  return {
    rateLimit: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      perHour: e.RATE_LIMIT_PER_HOUR,
      concurrency: e.RATE_LIMIT_CONCURRENCY,
      /** Per-endpoint budgets per key per minute, on top of perMinute and perHour. */
      endpointPerMinute,
      /** Ceilings shared by all keys (and the session) of one account, on top of the per-key limits. */
      account: {
        perMinute: accountLimit(e.RATE_LIMIT_ACCOUNT_PER_MINUTE, e.RATE_LIMIT_PER_MINUTE),
        perHour: accountLimit(e.RATE_LIMIT_ACCOUNT_PER_HOUR, e.RATE_LIMIT_PER_HOUR),
        concurrency: accountLimit(e.RATE_LIMIT_ACCOUNT_CONCURRENCY, e.RATE_LIMIT_CONCURRENCY),
        /** POST /analyze requests in flight per account: bounds its share of the analysis worker pool. */
        analyzeConcurrency: e.RATE_LIMIT_ACCOUNT_ANALYZE_CONCURRENCY ?? Math.min(INT4_MAX, e.RATE_LIMIT_CONCURRENCY),
        endpointPerMinute: {
          generate: accountLimit(e.RATE_LIMIT_ACCOUNT_GENERATE_PER_MINUTE, endpointPerMinute.generate),
          analyze: accountLimit(e.RATE_LIMIT_ACCOUNT_ANALYZE_PER_MINUTE, endpointPerMinute.analyze),
          garments: accountLimit(e.RATE_LIMIT_ACCOUNT_GARMENTS_PER_MINUTE, endpointPerMinute.garments),
          upload: accountLimit(e.RATE_LIMIT_ACCOUNT_UPLOAD_PER_MINUTE, endpointPerMinute.upload),
          preview: accountLimit(e.RATE_LIMIT_ACCOUNT_PREVIEW_PER_MINUTE, endpointPerMinute.preview),
        },
      },
      leaseMs: e.RATE_LIMIT_LEASE_SECONDS * 1000,
      storeTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS,
      onStoreError: e.RATE_LIMIT_ON_STORE_ERROR,
    },
  };
}
