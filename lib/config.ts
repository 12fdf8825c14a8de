// The one place that reads environment variables. Every process (API, worker, start and test scripts)
// calls loadConfig(); an invalid value stops the process at start-up with a message naming the variable.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

const ROOT = path.resolve(__dirname, '..');

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** A duration such as `500ms`, `2s`, `15m`, `1h`, `24h`, `1d` (a bare number is milliseconds), parsed to ms. */
const duration = (def: string, min = 1, max = 30 * 86_400_000) =>
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

export const PRICE_ID_RE = /^price_\w{1,200}$/;

export interface TokenPack {
  priceId: string;
  tokens: number;
  priceUsd: number;
}

/** `priceId:tokens:usd` separated by commas; a message saying what is wrong otherwise. */
export function parseTokenPacks(v: string): TokenPack[] | string {
  const packs: TokenPack[] = [];
  for (const part of v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(price_\w{1,200}):(\d{1,7}):(\d{1,6}(?:\.\d{1,2})?)$/.exec(part);
    if (!m) return `"${part}" is not priceId:tokens:usd (e.g. price_a:100:9)`;
    const pack = { priceId: m[1]!, tokens: Number(m[2]), priceUsd: Number(m[3]) };
    if (pack.tokens < 1) return `"${part}": tokens must be at least 1`;
    if (packs.some((p) => p.priceId === pack.priceId)) return `price ${pack.priceId} is listed twice`;
    packs.push(pack);
  }
  return packs;
}

/** Largest value of a PostgreSQL integer column (the rate-limit tables count in int4). */
const INT4_MAX = 2_147_483_647;
/** An optional positive limit that fits those columns; unset means "derived from another setting". */
const optionalLimit = () => z.coerce.number().int().min(1).max(INT4_MAX).optional();

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

  // File storage: local disk under DATA_DIR/files (default) or an S3-compatible bucket.
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: z.url().optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1')
    .default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_SESSION_TOKEN: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*\/$/i, 'must be a key prefix ending in / such as mockups/')
    .optional(),

  // Storage per account (docs/storage.md): the bytes an account's uploads may take (original, thumbnail
  // and prepared levels; 1 GiB), and how long prepared levels no generation used are kept.
  STORAGE_QUOTA_BYTES: int(1024 ** 3, 0),
  PREPARED_LEVELS_RETENTION: duration('30d', 3600_000, 3650 * 86_400_000),

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

  // Storefront: Shopify OAuth, publishing, order webhooks, fulfillment. Unset SHOPIFY_API_KEY: `npm
  // start` runs the local development shop and passes its credentials and address.
  SHOPIFY_API_KEY: z.string().min(1).optional(),
  SHOPIFY_API_SECRET: z.string().min(1).optional(),
  SHOPIFY_SCOPES: z
    .string()
    .regex(/^[a-z_]+(,[a-z_]+)*$/, 'comma-separated scope names such as write_products,read_orders')
    .default('write_products,read_orders,write_fulfillments,read_fulfillments'),
  SHOPIFY_SHOP_BASE_URL: z.url().optional(),
  SHOPIFY_DEV_SHOP_URL: z.url().optional(),
  SHOPIFY_STATE_TTL_S: int(600, 10, 86_400),
  SHOPIFY_SYNC_TIMEOUT_MS: int(10_000, 100, 120_000),
  TOKEN_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  // Retention (docs/storefront.md): raw bodies of processed Shopify webhooks, customers/data_request exports.
  SHOPIFY_WEBHOOK_BODY_RETENTION: duration('7d', 0, 365 * 86_400_000),
  SHOPIFY_DATA_REQUEST_RETENTION: duration('30d', 0, 365 * 86_400_000),

  // Payments through Stripe. Unset STRIPE_SECRET_KEY: `npm start` runs stripe-mock and points the client
  // at it; elsewhere the payment routes other than the plan list answer 503.
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_…, sk_live_… or rk_…)')
    .optional(),
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, 'must be an endpoint signing secret (whsec_…)')
    .optional(),
  // Development defaults: stripe-mock answers every subscription with the price price_1PgafmB7WZ01zgkW6dKueIc5, so
  // Pro defaults to it and a subscription started against stripe-mock resolves to a plan.
  STRIPE_PRICE_PRO: z
    .string()
    .regex(PRICE_ID_RE, 'must be a Stripe price id')
    .default('price_1PgafmB7WZ01zgkW6dKueIc5'),
  STRIPE_PRICE_BUSINESS: z.string().regex(PRICE_ID_RE, 'must be a Stripe price id').default('price_business_monthly'),
  STRIPE_TOKEN_PACKS: z
    .string()
    .transform((v, ctx) => {
      const packs = parseTokenPacks(v);
      if (typeof packs === 'string') {
        ctx.addIssue({ code: 'custom', message: packs });
        return z.NEVER;
      }
      return packs;
    })
    .default(parseTokenPacks('price_pack_100:100:9,price_pack_500:500:39') as TokenPack[]),
  // Design chat (docs/chat.md). Providers in order: Gemini when GEMINI_API_KEY is set, OpenAI when
  // OPENAI_API_KEY is set; with neither, the built-in local renderer. The base URLs point the SDKs elsewhere
  // (stand-ins, proxies). Timeouts are per attempt; each provider gets CHAT_PROVIDER_ATTEMPTS attempts on 429, 5xx
  // and timeouts before the next one is tried.
  GEMINI_API_KEY: z.string().min(1).optional(),
  GEMINI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  GEMINI_TIMEOUT_MS: int(90_000, 100, 600_000),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_TIMEOUT_MS: int(120_000, 100, 600_000),
  CHAT_PROVIDER_ATTEMPTS: int(3, 1, 10),
  CHAT_SYNC_TIMEOUT_MS: int(120_000, 100, 600_000),
  // The chat-jobs sweep (every minute) fails a job still running this long after it was created whose workflow has
  // closed or was never started, refunding its debit if one was taken.
  CHAT_ORPHAN_AFTER: duration('2m', 5000),
  CHAT_RATE_PER_MINUTE: int(10, 1),
  CHAT_RATE_PER_HOUR: int(100, 1),

  // Mail (docs/accounts.md): nodemailer over SMTP_URL (smtp:// or smtps://, credentials in the URL). Unset, `npm
  // start` runs Mailpit and sets it; elsewhere mails stay in the outbox, unsent, until it is set.
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).max(200).default('Apparel mockups <no-reply@localhost>'),
  // `required`: the Free plan's tokens wait for a verified email (default in production); `off`: granted at signup.
  EMAIL_VERIFICATION: z.enum(['required', 'off']).optional(),
  // Account mail limits: verification resends per account per hour, reset requests per email per hour and per IP
  // per hour.
  AUTH_VERIFY_RESENDS_PER_HOUR: int(5, 1),
  AUTH_RESETS_PER_EMAIL: int(5, 1),
  AUTH_RESETS_PER_IP: int(50, 1),
  // Account changes per hour, each per account and per client IP (docs/security.md#limits): changes of email,
  // change-password attempts (a success takes its count back, so failed current passwords add up), deletions, exports.
  AUTH_EMAIL_CHANGES_PER_HOUR: int(5, 1),
  AUTH_PASSWORD_CHANGES_PER_HOUR: int(10, 1),
  AUTH_DELETIONS_PER_HOUR: int(5, 1),
  AUTH_EXPORTS_PER_HOUR: int(10, 1),

  // Metrics (docs/operations.md): the API's GET /metrics answers loopback callers, and others with this bearer token;
  // the worker's Prometheus endpoint listens on WORKER_METRICS_ADDRESS (host:port) when it is set.
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  WORKER_METRICS_ADDRESS: z
    .string()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'host:port, e.g. 127.0.0.1:9465 or 0.0.0.0:9465')
    .optional(),

  // Traces (docs/operations.md#traces), the standard OpenTelemetry variables. lib/tracing.ts reads them itself,
  // before anything else is loaded (the SDK must patch node:http first); they are validated here so a bad value
  // stops the process at start-up like any other. Unset endpoint: no spans are exported.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
  OTEL_SDK_DISABLED: z
    .string()
    .optional()
    .transform((v) => v?.trim().toLowerCase() === 'true'),

  // Templates (docs/templates.md): the largest PSD/PSB accepted (200 MiB), the imports' own task queue (the worker
  // serves it beside TEMPORAL_TASK_QUEUE unless WORKER_QUEUES says otherwise), how long POST /templates waits for an
  // import before answering 202, templates per account, and the bytes of prepared templates a process keeps in memory.
  TEMPLATE_MAX_BYTES: int(200 * 1024 ** 2, 1024, 2 * 1024 ** 3),
  TEMPLATE_TASK_QUEUE: z.string().min(1).optional(),
  WORKER_QUEUES: z.enum(['all', 'renders', 'templates']).default('all'),
  TEMPLATE_SYNC_TIMEOUT_MS: int(20_000, 0, 600_000),
  TEMPLATES_PER_ACCOUNT: int(100, 1, INT4_MAX),
  TEMPLATE_CACHE_BYTES: int(512 * 1024 ** 2, 0),
});

export type Env = z.infer<typeof envSchema>;

/** Account-wide ceilings default to this many times the per-key limit: three keys at full speed, then they share. */
export const ACCOUNT_FACTOR = 3;
/** Limits go to PostgreSQL as `integer`. */
const accountLimit = (own: number | undefined, perKey: number) => own ?? Math.min(INT4_MAX, ACCOUNT_FACTOR * perKey);

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
  const endpointPerMinute = {
    generate: e.RATE_LIMIT_GENERATE_PER_MINUTE,
    analyze: e.RATE_LIMIT_ANALYZE_PER_MINUTE,
    garments: e.RATE_LIMIT_GARMENTS_PER_MINUTE,
    upload: e.RATE_LIMIT_UPLOAD_PER_MINUTE,
    preview: e.RATE_LIMIT_PREVIEW_PER_MINUTE,
  };
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
    /** Bearer token for GET /metrics from non-loopback callers; unset: loopback only. */
    metricsToken: e.METRICS_TOKEN,
    /** host:port of the worker's Prometheus endpoint; unset: no endpoint. */
    workerMetricsAddress: e.WORKER_METRICS_ADDRESS,
    tracing: {
      /** where spans go over OTLP/HTTP (the traces endpoint, else the base one + /v1/traces); unset: not exported */
      endpoint: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT,
      /** the OTLP/HTTP encoding (lib/tracing.ts OTLP_PROTOCOLS) */
      protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? ('http/protobuf' as const),
      /** service.name of the spans; unset: each process's own (`apparel-api`, `apparel-worker`...) */
      serviceName: e.OTEL_SERVICE_NAME,
      /** OTEL_SDK_DISABLED=true: no SDK even with an endpoint */
      disabled: e.OTEL_SDK_DISABLED,
    },
    auth: {
      loginFailuresPerEmail: e.AUTH_LOGIN_FAILURES_PER_EMAIL,
      loginFailuresPerIp: e.AUTH_LOGIN_FAILURES_PER_IP,
      signupsPerIp: e.AUTH_SIGNUPS_PER_IP,
    },
    storage: {
      driver: e.STORAGE_DRIVER,
      s3: {
        endpoint: e.S3_ENDPOINT,
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        sessionToken: e.S3_SESSION_TOKEN,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
        prefix: e.S3_PREFIX,
      },
    },
    /** Storage per account (docs/storage.md). */
    uploads: {
      /** Bytes an account's uploads may take: originals, thumbnails and prepared levels. */
      quotaBytes: e.STORAGE_QUOTA_BYTES,
      /** Prepared levels no generation used for this long are deleted by the maintenance sweep. */
      preparedLevelsRetentionMs: e.PREPARED_LEVELS_RETENTION,
    },
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
    payments: {
      /** Unset: payments are not configured (npm start runs stripe-mock and sets it). */
      secretKey: e.STRIPE_SECRET_KEY,
      /** Base URL of the Stripe API (stripe-mock locally); unset: Stripe's own. */
      apiUrl: e.STRIPE_API_URL?.replace(/\/+$/, ''),
      /** Endpoint signing secret; outside production generated once into DATA_DIR when unset. */
      webhookSecret:
        e.STRIPE_WEBHOOK_SECRET ??
        (e.NODE_ENV === 'production'
          ? requiredWith(e.STRIPE_SECRET_KEY, 'STRIPE_WEBHOOK_SECRET', 'STRIPE_SECRET_KEY is set')
          : `whsec_${persistedFile(dataDir, e.NODE_ENV, 'stripe-webhook-secret', 'STRIPE_WEBHOOK_SECRET')}`),
      planPrices: { pro: e.STRIPE_PRICE_PRO, business: e.STRIPE_PRICE_BUSINESS },
      tokenPacks: e.STRIPE_TOKEN_PACKS,
    },
    shopify: {
      /** Unset: no app credentials (npm start runs the local development shop and sets them). */
      apiKey: e.SHOPIFY_API_KEY,
      apiSecret:
        e.SHOPIFY_API_SECRET ??
        (e.NODE_ENV === 'production'
          ? requiredWith(e.SHOPIFY_API_KEY, 'SHOPIFY_API_SECRET', 'SHOPIFY_API_KEY is set')
          : undefined),
      scopes: e.SHOPIFY_SCOPES,
      /** Origin every shop request goes to instead of https://<shop> (local shop, tests); unset in production. */
      shopBaseUrl: e.SHOPIFY_SHOP_BASE_URL?.replace(/\/+$/, ''),
      /**
       * The local development shop's origin as the browser reaches it (npm start's dev shop, tests): the authorize URL
       * and a store's admin links point there (`<url>/admin/oauth/authorize?…&shop=<shop>`, `<url>/admin?shop=<shop>`)
       * instead of https://<shop>. Unset in production.
       */
      devShopUrl: e.SHOPIFY_DEV_SHOP_URL?.replace(/\/+$/, ''),
      stateTtlMs: e.SHOPIFY_STATE_TTL_S * 1000,
      /** How long POST /api/storefront/publish and fulfillment wait for their workflow before answering 202. */
      syncTimeoutMs: e.SHOPIFY_SYNC_TIMEOUT_MS,
      /** AES-256-GCM key for shop access tokens at rest; undefined in production when the storefront is not configured. */
      tokenKey: e.TOKEN_ENCRYPTION_KEY
        ? Buffer.from(e.TOKEN_ENCRYPTION_KEY, 'base64')
        : e.NODE_ENV === 'production'
          ? requiredWith(e.SHOPIFY_API_KEY, 'TOKEN_ENCRYPTION_KEY', 'SHOPIFY_API_KEY is set (32 bytes, base64)')
          : Buffer.from(persistedFile(dataDir, e.NODE_ENV, 'token-encryption-key', 'TOKEN_ENCRYPTION_KEY'), 'base64'),
      /** The raw body of a processed webhook is erased this long after processing. */
      webhookBodyRetentionMs: e.SHOPIFY_WEBHOOK_BODY_RETENTION,
      /** A customers/data_request export is erased this long after it was made. */
      dataRequestRetentionMs: e.SHOPIFY_DATA_REQUEST_RETENTION,
    },
    templates: {
      maxBytes: e.TEMPLATE_MAX_BYTES,
      /** unset: TEMPORAL_TASK_QUEUE + `-templates` */
      taskQueue: e.TEMPLATE_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-templates`,
      /** which queues this worker process serves */
      workerQueues: e.WORKER_QUEUES,
      syncTimeoutMs: e.TEMPLATE_SYNC_TIMEOUT_MS,
      perAccount: e.TEMPLATES_PER_ACCOUNT,
      cacheBytes: e.TEMPLATE_CACHE_BYTES,
    },
    chat: {
      gemini: chatProvider(e.GEMINI_API_KEY, e.GEMINI_BASE_URL, e.GEMINI_TIMEOUT_MS),
      openai: chatProvider(e.OPENAI_API_KEY, e.OPENAI_BASE_URL, e.OPENAI_TIMEOUT_MS),
      /** attempts per provider on 429, 5xx and timeouts */
      providerAttempts: e.CHAT_PROVIDER_ATTEMPTS,
      /** how long POST /api/chat waits for the job before answering 202 */
      syncTimeoutMs: e.CHAT_SYNC_TIMEOUT_MS,
      /** a job still running this long after it was created, with no running workflow, is failed by the sweep */
      orphanAfterMs: e.CHAT_ORPHAN_AFTER,
      /** requests per user per minute (every authenticated POST /api/chat counts) */
      perMinute: e.CHAT_RATE_PER_MINUTE,
      /** requests per account per hour */
      perHour: e.CHAT_RATE_PER_HOUR,
    },
    mail: {
      /** unset: mails wait in the outbox (npm start runs Mailpit and sets it) */
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      /** `required`: the Free plan's tokens are granted when the email is verified; `off`: at signup */
      verification: e.EMAIL_VERIFICATION ?? (e.NODE_ENV === 'production' ? ('required' as const) : ('off' as const)),
      verifyResendsPerHour: e.AUTH_VERIFY_RESENDS_PER_HOUR,
      resetsPerEmail: e.AUTH_RESETS_PER_EMAIL,
      resetsPerIp: e.AUTH_RESETS_PER_IP,
      /** per account and per client IP per hour (api/routes/account.ts) */
      accountChangesPerHour: {
        emailChange: e.AUTH_EMAIL_CHANGES_PER_HOUR,
        passwordChange: e.AUTH_PASSWORD_CHANGES_PER_HOUR,
        deletion: e.AUTH_DELETIONS_PER_HOUR,
        export: e.AUTH_EXPORTS_PER_HOUR,
      },
    },
  };
});

/** The settings every process reads (loadConfig), inferred from the schema that reads them. */
export type Config = z.output<typeof configSchema>;
export type RateLimitConfig = Config['rateLimit'];
export type ChatConfig = Config['chat'];
export type ChatProviderConfig = ChatConfig['gemini'];
export type MailConfig = Config['mail'];

function chatProvider(apiKey: string | undefined, baseUrl: string | undefined, timeoutMs: number) {
  return {
    /** unset: the provider is not used */
    apiKey,
    /** endpoint override (the SDK's baseUrl / baseURL); unset: the provider's own */
    baseUrl,
    /** per attempt */
    timeoutMs,
  };
}

export class ConfigError extends Error {}

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

/** In production a variable another one depends on must be set: undefined when that one is unset too. */
function requiredWith(other: string | undefined, variable: string, because: string): undefined {
  if (other) throw new ConfigError(`Invalid configuration:\n  ${variable}: required in production when ${because}`);
  return undefined;
}

// Outside production a missing TOKEN_ENCRYPTION_KEY (or Stripe webhook secret) is generated once (32 random bytes,
// base64) into DATA_DIR, like APP_SECRET; production must set it when the feature is configured (requiredWith).
function persistedFile(dataDir: string, env: Env['NODE_ENV'], name: string, variable: string): string {
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
function persistedSecret(dataDir: string, env: Env['NODE_ENV']): string {
  if (env === 'production')
    throw new ConfigError('Invalid configuration:\n  APP_SECRET: required in production (at least 32 characters)');
  const file = path.join(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
