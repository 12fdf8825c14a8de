// docker-compose.yml cannot run here (no Docker engine): these checks keep its security properties by reading it,
// and load the configuration its app services would get.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../lib/config';
import { TEMPORAL_DEV_DYNAMIC_CONFIG } from '../../scripts/stand-ins/temporal';

const ROOT = path.join(__dirname, '../..');
const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');

/** The uncommented `KEY=value` lines of an env file. */
function envFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

const unquote = (v: string) =>
  v
    .replace(/\s+#.*$/, '')
    .replace(/^'(.*)'$/, '$1')
    .replace(/^"(.*)"$/, '$1');

/** `KEY: value` lines of the block opened by the line matching `start`, at `indent` spaces; `<<: *x` as is. */
function block(lines: string[], start: number, indent: number): [string, string][] {
  const out: [string, string][] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const lead = line.length - line.trimStart().length;
    if (lead < indent) break;
    if (lead > indent) continue;
    const m = /^\s*([^:\s]+):\s*(.*)$/.exec(line);
    if (m) out.push([m[1]!, unquote(m[2]!.trim())]);
  }
  return out;
}

/**
 * The environment docker compose gives a service: its `environment` block with `<<: *app-env` merged, and every
 * ${VAR}, ${VAR:-default} and ${VAR:?message} resolved from `dotenv` the way compose does.
 */
function serviceEnv(service: string, dotenv: Record<string, string>): Record<string, string> {
  const lines = compose.split('\n');
  const anchors = new Map<string, [string, string][]>();
  lines.forEach((l, i) => {
    const m = /^[\w-]+:\s*&([\w-]+)\s*$/.exec(l);
    if (m) anchors.set(m[1]!, block(lines, i, 2));
  });
  const services = lines.indexOf('services:');
  const at = lines.findIndex((l, i) => i > services && l === `  ${service}:`);
  assert.ok(at > 0, `service ${service} in docker-compose.yml`);
  const envAt = lines.findIndex((l, i) => i > at && /^ {4}environment:/.test(l));
  const alias = /^ {4}environment:\s*\*([\w-]+)/.exec(lines[envAt]!)?.[1];
  const entries = alias ? anchors.get(alias)! : block(lines, envAt, 6);
  const raw: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (k === '<<') for (const [k2, v2] of anchors.get(v.replace(/^\*/, ''))!) raw[k2] = v2;
    else raw[k] = v;
  }
  const resolve = (v: string) =>
    v.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
      const value = dotenv[name] ?? '';
      if (op === '?' && !value) throw new Error(`compose refuses to start: ${name}: ${arg}`);
      if (op === '-' && !value) return arg ?? '';
      return value;
    });
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, resolve(v)]));
}

/** .env.example as a user fills it in: its values, plus the three it leaves for them to choose. */
const filledEnv = () => ({
  ...envFile(example),
  POSTGRES_PASSWORD: 'a-password-of-their-own',
  APP_SECRET: randomBytes(32).toString('hex'),
  // docker compose's Prometheus scrapes the API with it (docs/operations.md)
  METRICS_TOKEN: randomBytes(16).toString('hex'),
});

/** Every variable of lib/config.ts's schema (with its parts in lib/config/) whose name starts with one of `prefixes`. */
const configVariables = (...prefixes: string[]) => {
  const parts = readdirSync(path.join(ROOT, 'lib/config')).map((f) => `lib/config/${f}`);
  const source = ['lib/config.ts', ...parts].map((f) => readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
  const names = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
  return [...new Set(names.filter((n) => prefixes.some((p) => n.startsWith(p))))];
};

describe('docker-compose.yml', () => {
  it("gives its Temporal server the dev server's unthrottled transfer queue (deploy/temporal/dynamicconfig.yaml)", () => {
    const file = 'deploy/temporal/dynamicconfig.yaml';
    const dynamic = readFileSync(path.join(ROOT, file), 'utf8');
    assert.match(
      compose,
      new RegExp(`- \\./${file.replace(/\./g, '\\.')}:/etc/temporal/config/dynamicconfig/mockups\\.yaml:ro`),
    );
    assert.match(compose, /DYNAMIC_CONFIG_FILE_PATH: config\/dynamicconfig\/mockups\.yaml/);
    const rps = TEMPORAL_DEV_DYNAMIC_CONFIG['history.transferProcessorMaxPollRPS'];
    assert.ok(typeof rps === 'number' && rps >= 1000);
    assert.match(dynamic, new RegExp(`^history\\.transferProcessorMaxPollRPS:\\n {2}- value: ${rps}$`, 'm'));
  });

  it('publishes neither the Temporal frontend nor the UIs to the network (UIs on 127.0.0.1 only)', () => {
    assert.doesNotMatch(compose, /['"]?7233:7233/, 'Temporal frontend published');
    const published = [...compose.matchAll(/^\s+- '([^']+)'$/gm)].map((m) => m[1]!).filter((p) => /:\d+$/.test(p));
    // the API; the Temporal UI, and Jaeger, Grafana and Prometheus (docs/operations.md), on loopback only
    assert.deepEqual(published.sort(), [
      '127.0.0.1:16686:16686',
      '127.0.0.1:3001:3000',
      '127.0.0.1:8080:8080',
      '127.0.0.1:9090:9090',
      '3000:3000',
    ]);
  });
  it('takes every password and secret from .env, with no literal default', () => {
    assert.doesNotMatch(compose, /PASSWORD: [a-z]/i);
    assert.doesNotMatch(compose, /POSTGRES_PWD: [a-z]/i);
    assert.doesNotMatch(compose, /postgres:\/\/mockups:mockups@/);
    for (const v of ['POSTGRES_PASSWORD', 'APP_SECRET', 'PUBLIC_BASE_URL'])
      assert.match(compose, new RegExp(`\\$\\{${v}:\\?`));
    for (const v of ['POSTGRES_PASSWORD', 'APP_SECRET', 'PUBLIC_BASE_URL'])
      assert.match(example, new RegExp(`^${v}=`, 'm'));
    assert.match(readFileSync(path.join(ROOT, '.gitignore'), 'utf8'), /^\.env$/m);
  });

  for (const service of ['api', 'worker', 'migrate']) {
    it(`gives the ${service} service an environment loadConfig() accepts (production, Shopify and Stripe unset)`, () => {
      const env = serviceEnv(service, filledEnv());
      assert.equal(env.NODE_ENV, 'production');
      const config = loadConfig(env);
      assert.equal(config.env, 'production');
      assert.equal(config.shopify.apiKey, undefined);
      assert.equal(config.shopify.tokenKey, undefined, 'no key generated into DATA_DIR in production');
      assert.equal(config.payments.secretKey, undefined);
    });
  }

  it('passes the storefront and payment variables through from .env', () => {
    const key = randomBytes(32).toString('base64');
    const env = serviceEnv('api', {
      ...filledEnv(),
      SHOPIFY_API_KEY: 'app-key',
      SHOPIFY_API_SECRET: 'app-secret',
      TOKEN_ENCRYPTION_KEY: key,
      STRIPE_SECRET_KEY: 'sk_live_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
    });
    const config = loadConfig(env);
    assert.equal(config.shopify.apiKey, 'app-key');
    assert.equal(config.shopify.apiSecret, 'app-secret');
    assert.equal(config.shopify.tokenKey?.toString('base64'), key);
    assert.equal(config.payments.secretKey, 'sk_live_abc');
    assert.equal(config.payments.webhookSecret, 'whsec_abc');
    for (const v of [...configVariables('SHOPIFY_', 'STRIPE_'), 'TOKEN_ENCRYPTION_KEY'])
      assert.match(compose, new RegExp(`^ {2}${v}: \\$\\{${v}:-\\}`, 'm'), `${v} passed through by docker-compose.yml`);
  });

  it('refuses Shopify configured in production without TOKEN_ENCRYPTION_KEY or SHOPIFY_API_SECRET, naming it', () => {
    const env = serviceEnv('worker', { ...filledEnv(), SHOPIFY_API_KEY: 'app-key', SHOPIFY_API_SECRET: 'app-secret' });
    assert.throws(
      () => loadConfig(env),
      (err: Error) =>
        err instanceof ConfigError &&
        /TOKEN_ENCRYPTION_KEY: required in production when SHOPIFY_API_KEY is set/.test(err.message),
    );
    assert.throws(
      () => loadConfig({ ...env, TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'), SHOPIFY_API_SECRET: '' }),
      (err: Error) => err instanceof ConfigError && /SHOPIFY_API_SECRET: required in production/.test(err.message),
    );
    assert.throws(
      () => loadConfig({ ...env, TOKEN_ENCRYPTION_KEY: 'too-short' }),
      (err: Error) => err instanceof ConfigError && /TOKEN_ENCRYPTION_KEY: must be 32 bytes/.test(err.message),
    );
  });
});

describe('storefront and payment variables are documented', () => {
  it('lists every SHOPIFY_* variable and TOKEN_ENCRYPTION_KEY in docs/configuration.md and .env.example', () => {
    const docs = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    const names = [...configVariables('SHOPIFY_'), 'TOKEN_ENCRYPTION_KEY'];
    assert.ok(names.length >= 8, names.join(', '));
    for (const v of names) {
      assert.match(docs, new RegExp(`\`${v}\``), `${v} in docs/configuration.md`);
      assert.match(example, new RegExp(`^#?${v}=`, 'm'), `${v} in .env.example`);
    }
  });
});
