// The one place that reads environment variables. Every process (API, worker, start and test scripts)
// calls loadConfig(); an invalid value stops the process at start-up with a message naming the variable. The server's
// own settings are here; each other concern reads its variables in lib/config/ (storage, rate limits, storefront,
// payments, chat, mail, observability, templates; parse.ts holds the value parsers and the generated secrets).
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { chatEnv, chatConfig } from './config/chat';
import { mailEnv, mailConfig } from './config/mail';
import { observabilityEnv, observabilityConfig } from './config/observability';
import { bool, ConfigError, duration, int, INT4_MAX, persistedSecret, ROOT } from './config/parse';
import { paymentsEnv, paymentsConfig } from './config/payments';
import { rateLimitEnv, rateLimitConfig } from './config/rate-limits';
import { storageEnv, storageConfig } from './config/storage';
import { storefrontEnv, storefrontConfig } from './config/storefront';
import { templatesEnv, templatesConfig } from './config/templates';

export { ConfigError } from './config/parse';
export { ACCOUNT_FACTOR } from './config/rate-limits';
export { parseTokenPacks, PRICE_ID_RE, type TokenPack } from './config/payments';

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(3000, 0, 65535),
  PUBLIC_BASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default(path.join(ROOT, '.data')),
  APP_SECRET: z.string().min(32).optional(),

  DATABASE_URL: z.url().optional(),
  DATABASE_POOL_MAX: int(10, 1, 200),
  EMBEDDED_PG_PORT: int(54329, 1024, 65535).refine(
    (p) => p !== 5432,
    'must not be 5432 (a system PostgreSQL may listen there)',
  ),

  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('mockups'),
  TEMPORAL_UI_URL: z.url().optional(),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: int(7233, 1024, 65535),
  TEMPORAL_DEV_UI_PORT: int(8233, 1024, 65535),

  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, 'lowercase letters and digits, 2-16 chars')
    .default('amk'),
  SESSION_TTL_HOURS: int(24 * 14, 1, 24 * 365),
  SESSION_COOKIE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default('amk_session'),
  ALLOW_PRIVATE_URLS: bool.default(false),
  SEED_ON_START: bool.default(true),
  // Express's `trust proxy`: true/false, a hop count, or a comma-separated list of addresses, subnets and the names
  // loopback, linklocal, uniquelocal. The client IP it yields keys the sign-in and signup limits.
  TRUST_PROXY: z
    .string()
    .default('loopback')
    .transform((v, ctx): boolean | number | string => {
      const t = v.trim();
      if (t === 'true' || t === 'false') return t === 'true';
      if (/^\d+$/.test(t)) return Number(t);
      const parts = t.split(',').map((p) => p.trim());
      const ok = (p: string) => {
        if (['loopback', 'linklocal', 'uniquelocal'].includes(p)) return true;
        const [addr, bits, ...rest] = p.split('/');
        if (rest.length || !addr || isIP(addr) === 0) return false;
        const max = isIP(addr) === 4 ? 32 : 128;
        return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max);
      };
      const bad = parts.find((p) => !ok(p));
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `must be true, false, a hop count, or addresses/subnets/loopback/linklocal/uniquelocal separated by commas; ${JSON.stringify(bad)} is none of these`,
        });
        return z.NEVER;
      }
      return parts.join(',');
    }),
  // Sign-in and signup limits (docs/security.md): failed sign-ins per email per 15 minutes and per client IP per
  // hour, signups per client IP per hour.
  AUTH_LOGIN_FAILURES_PER_EMAIL: int(10, 1),
  AUTH_LOGIN_FAILURES_PER_IP: int(100, 1),
  AUTH_SIGNUPS_PER_IP: int(20, 1),

  ...storageEnv,

  ...rateLimitEnv,

  // Outbound generation webhooks. The spec gives the receiver 10 seconds; the rest is our retry policy.
  WEBHOOK_TIMEOUT_MS: int(10_000, 50, 120_000),
  WEBHOOK_RETRY_INITIAL: duration('2s'),
  WEBHOOK_RETRY_MAX_INTERVAL: duration('1h'),
  WEBHOOK_RETRY_WINDOW: duration('24h'),
  WEBHOOK_SECRET_GRACE: duration('24h', 0),

  GENERATE_SYNC_TIMEOUT_MS: int(60_000, 1000, 600_000),
  // Test mode and delivery resends (docs/test-mode.md): test-mode generations per account in any 24 hours, and
  // resends (POST /generations/<id>/deliveries) per account per hour.
  TEST_MODE_GENERATIONS_PER_DAY: int(500, 1, INT4_MAX),
  DELIVERY_RESENDS_PER_HOUR: int(30, 1, INT4_MAX),
  // The maintenance sweep fails and refunds a generation still unfinished this long after it was created or started
  // when no workflow is running it (the API died between charging and starting it). The chaos suite shortens it.
  GENERATION_ORPHAN_AFTER: duration('10m', 5000),
  // Bulk renders (docs/generation.md#bulk-renders): most items in one POST /generate/bulk (designs x garments x
  // colours x zones), and how many of one bulk's items render at once.
  BULK_MAX_ITEMS: int(500, 1, 10_000),
  BULK_CONCURRENCY: int(8, 1, 64),
  // Idempotency-Key on POST /generate, /generate/batch and /upload: how long a key (and its stored answer) lives, and
  // how long a request holds its key before the key counts as abandoned by a dead API process. The lock is never
  // shorter than GENERATE_SYNC_TIMEOUT_MS + 30 s, so a synchronous generate still waiting is not taken for dead.
  IDEMPOTENCY_KEY_TTL: duration('24h', 60_000),
  IDEMPOTENCY_LOCK: duration('90s', 1000),
  // The inbound sweep starts the workflow of a stored Stripe event or Shopify webhook still waiting this long after it
  // arrived; younger ones are left to the API that stored them (it starts their workflow right after answering).
  INBOUND_SWEEP_GRACE_SECONDS: int(15, 0, 3600),

  ...storefrontEnv,
  ...paymentsEnv,
  ...chatEnv,
  ...mailEnv,
  ...observabilityEnv,
  ...templatesEnv,
});

export type Env = z.infer<typeof envSchema>;

/** The product's settings, named for what they do, from the validated environment (loadConfig). */
const configSchema = envSchema.transform((e, ctx) => {
  const dataDir = path.resolve(e.DATA_DIR);
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const https = new URL(publicBaseUrl).protocol === 'https:';
  // Browsers keep a Secure (and __Host-) cookie only over https, and a production app reached over plain http would
  // send the session cookie in clear: production refuses to start without an https PUBLIC_BASE_URL.
  if (e.NODE_ENV === 'production' && !https) {
    ctx.addIssue({
      code: 'custom',
      path: ['PUBLIC_BASE_URL'],
      message:
        'required in production, and must be https:// (the address clients reach, TLS terminated in front of the API)',
    });
    return z.NEVER;
  }
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    host: e.HOST,
    port: e.PORT,
    publicBaseUrl,
    dataDir,
    appSecret: e.APP_SECRET ?? persistedSecret(dataDir, e.NODE_ENV),
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL,
      cliPath: e.TEMPORAL_CLI_PATH,
      devPort: e.TEMPORAL_DEV_PORT,
      devUiPort: e.TEMPORAL_DEV_UI_PORT,
    },
    apiKeyPrefix: e.API_KEY_PREFIX,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    /**
     * The session cookie's name: SESSION_COOKIE_NAME, prefixed `__Host-` when PUBLIC_BASE_URL is https (always in
     * production), where the cookie is also `Secure` (see `https`).
     */
    sessionCookieName: https ? `__Host-${e.SESSION_COOKIE_NAME}` : e.SESSION_COOKIE_NAME,
    /**
     * PUBLIC_BASE_URL is https (always in production): the session cookie is `__Host-`-prefixed and `Secure`, and
     * every answer carries Strict-Transport-Security. Plain http://localhost development keeps neither.
     */
    https,
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    seedOnStart: e.SEED_ON_START,
    trustProxy: e.TRUST_PROXY,
    ...observabilityConfig(e),
    auth: {
      loginFailuresPerEmail: e.AUTH_LOGIN_FAILURES_PER_EMAIL,
      loginFailuresPerIp: e.AUTH_LOGIN_FAILURES_PER_IP,
      signupsPerIp: e.AUTH_SIGNUPS_PER_IP,
    },
    ...storageConfig(e),
    ...rateLimitConfig(e),
    webhooks: {
      /** Per-attempt limit for the whole exchange (connect, send, response headers). */
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      /** Delay before the first retry; each further retry doubles it. */
      retryInitialMs: e.WEBHOOK_RETRY_INITIAL,
      /** Cap on the delay between two attempts. */
      retryMaxIntervalMs: e.WEBHOOK_RETRY_MAX_INTERVAL,
      /** How long after the delivery was created attempts continue; the delivery is marked failed after that. */
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW,
      /** How long the previous signing secret keeps signing (as a second v1) after a rotation. */
      secretGraceMs: e.WEBHOOK_SECRET_GRACE,
    },
    generateSyncTimeoutMs: e.GENERATE_SYNC_TIMEOUT_MS,
    /** test-mode generations per account in any 24 hours (docs/test-mode.md) */
    testModeGenerationsPerDay: e.TEST_MODE_GENERATIONS_PER_DAY,
    /** POST /api/v1/generations/<id>/deliveries per account per hour */
    deliveryResendsPerHour: e.DELIVERY_RESENDS_PER_HOUR,
    /** how long an unfinished generation without a running workflow waits before the maintenance sweep recovers it */
    generationOrphanAfterMs: e.GENERATION_ORPHAN_AFTER,
    bulk: {
      /** most items in one bulk render (BULK_MAX_ITEMS) */
      maxItems: e.BULK_MAX_ITEMS,
      /** how many items of one bulk render at once (BULK_CONCURRENCY) */
      concurrency: e.BULK_CONCURRENCY,
    },
    idempotency: {
      /** lifetime of a key and its stored answer (IDEMPOTENCY_KEY_TTL) */
      ttlMs: e.IDEMPOTENCY_KEY_TTL,
      /**
       * how long a running request holds its key: IDEMPOTENCY_LOCK, at least the longer synchronous wait (generate's
       * GENERATE_SYNC_TIMEOUT_MS, the design chat's CHAT_SYNC_TIMEOUT_MS) + 30 s
       */
      lockMs: Math.max(e.IDEMPOTENCY_LOCK, e.GENERATE_SYNC_TIMEOUT_MS + 30_000, e.CHAT_SYNC_TIMEOUT_MS + 30_000),
    },
    /** seconds a stored inbound event waits for the API to start its workflow before the inbound sweep starts it */
    inboundSweepGraceSeconds: e.INBOUND_SWEEP_GRACE_SECONDS,
    ...paymentsConfig(e, dataDir),
    ...storefrontConfig(e, dataDir),
    ...templatesConfig(e),
    ...chatConfig(e),
    ...mailConfig(e),
  };
});

/** The settings every process reads (loadConfig), inferred from the schema that reads them. */
export type Config = z.output<typeof configSchema>;
export type RateLimitConfig = Config['rateLimit'];
export type ChatConfig = Config['chat'];
export type ChatProviderConfig = ChatConfig['gemini'];
export type MailConfig = Config['mail'];

/** Reads and validates the environment. `overrides` lets tests and scripts set values without touching process.env. */
export function loadConfig(
  source: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Record<keyof Env, string>> = {},
): Config {
  const merged: Record<string, string | undefined> = { ...source, ...overrides };
  // Empty strings mean "unset" so a blank line in an env file does not become a bogus value.
  for (const k of Object.keys(merged)) if (merged[k] === '') merged[k] = undefined;
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
