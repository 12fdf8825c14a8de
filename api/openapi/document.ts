// The OpenAPI 3.1 document of the whole service, generated from the zod schemas the routes parse with
// (api/http/schemas.ts, api/http/app-schemas.ts) and the response schemas the presenters are typed by
// (api/http/resources.ts). Served at GET /api/v1/openapi.json and rendered by GET /docs. Each resource's entries are
// in their own module here (service.ts, session.ts, catalogue.ts, designs.ts, templates.ts, bulk.ts, generations.ts,
// storefront.ts, payments.ts, chat.ts, accounts.ts, production.ts, uploads.ts, getting-started.ts); common.ts holds
// what they share.
//
// test/integration/openapi.test.ts walks createApp()'s router and fails when a route is missing here (or when this
// document names a route the app does not have): a new route is documented in its resource's module in the same change.
import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../lib/config';
import {
  idempotencyErrors,
  idempotencyHeaders,
  KEY_OR_SESSION,
  keyed,
  KEYED_HEADERS,
  REPLAYABLE_HEADERS,
  routePath,
} from './common';
import { registerAccountPaths } from './accounts';
import { registerProductionPaths } from './production';
import { registerTemplatePaths } from './templates';
import { registerBulkPaths } from './bulk';
import { registerUploadLibraryPaths } from './uploads';
import { quickStart, registerGettingStartedPaths } from './getting-started';
import { registerServicePaths } from './service';
import { registerSessionPaths } from './session';
import { registerCataloguePaths } from './catalogue';
import { registerDesignPaths } from './designs';
import { registerGenerationPaths } from './generations';
import { registerStorefrontPaths } from './storefront';
import { registerPaymentPaths } from './payments';
import { registerChatPaths } from './chat';

function register(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
  registerServicePaths(registry);
  registerSessionPaths(registry);
  registerCataloguePaths(registry);
  registerDesignPaths(registry);
  // prettier-ignore
  registerTemplatePaths({ path, keyed, security: KEY_OR_SESSION, keyedHeaders: KEYED_HEADERS, replayableHeaders: REPLAYABLE_HEADERS, idempotencyHeaders, idempotencyErrors });
  // prettier-ignore
  registerBulkPaths({ path, keyed, security: KEY_OR_SESSION, keyedHeaders: KEYED_HEADERS, replayableHeaders: REPLAYABLE_HEADERS, idempotencyHeaders, idempotencyErrors });
  registerGenerationPaths(registry);
  registerStorefrontPaths(registry);
  registerPaymentPaths(registry);
  registerChatPaths(registry);
}

const WEBHOOKS_DOC = path.resolve(__dirname, '../../docs/webhooks.md');
const RECIPE_SECTIONS = ['Headers', 'Verifying the signature', 'Rotating the secret'];

/**
 * The webhook verification recipe, taken from docs/webhooks.md (one source for the repository's docs and the
 * reference): its headers table, the verification steps with the Node.js receiver, and rotation, as markdown.
 */
export function webhookRecipe(file = WEBHOOKS_DOC): string {
  let md: string;
  try {
    md = readFileSync(file, 'utf8');
  } catch {
    return 'See docs/webhooks.md in the repository for the signature verification recipe.';
  }
  const sections = md.split(/^## /m).slice(1);
  const picked = sections.filter((sec) => RECIPE_SECTIONS.some((name) => sec.startsWith(`${name}\n`)));
  return picked.map((sec) => `### ${sec.trim()}`).join('\n\n');
}

/** Builds the document. The session cookie's name comes from the configuration. */
export function buildOpenApiDocument(config: Pick<Config, 'publicBaseUrl' | 'sessionCookieName' | 'rateLimit'>) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key: Authorization: Bearer <prefix>_live_<64 hex>, or <prefix>_test_<64 hex> for test mode (no tokens, ' +
      'TEST watermark, test data only). Create keys in the dashboard.',
  });
  registry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: config.sessionCookieName,
    description:
      'The browser session from /api/auth/login (HttpOnly, SameSite=Lax; `__Host-`-prefixed and Secure over https). ' +
      'Part A routes accept it instead of a key (the dashboard). Every call with it that changes something ' +
      '(any method but GET, HEAD, OPTIONS; also signup, login and logout) must come from the app origin: an ' +
      "`Origin` other than PUBLIC_BASE_URL's, or `Sec-Fetch-Site: cross-site`/`same-site`, is 403 " +
      '"Cross-site request refused".',
  });
  const int = { type: 'integer' as const };
  const rl = config.rateLimit;
  registry.registerComponent('headers', 'X-RateLimit-Limit', {
    description: `requests allowed in the window closest to running out (per key: ${rl.perMinute}/minute, ${rl.perHour}/hour, and each endpoint's own minute budget)`,
    schema: int,
  });
  registry.registerComponent('headers', 'X-RateLimit-Remaining', {
    description: 'requests left in that window',
    schema: int,
  });
  registry.registerComponent('headers', 'X-RateLimit-Reset', {
    description: 'Unix time (seconds) when that window resets',
    schema: int,
  });
  registry.registerComponent('headers', 'Retry-After', { description: 'seconds to wait before retrying', schema: int });
  registry.registerComponent('headers', 'Idempotent-Replayed', {
    description:
      '`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key (nothing ' +
      'was done or charged again); its X-Tokens-Remaining is the balance of that first answer',
    schema: { type: 'string', enum: ['true'] },
  });
  registry.registerComponent('headers', 'X-Tokens-Remaining', {
    description: "the account's token balance (after this request's charge)",
    schema: int,
  });
  register(registry);
  registerAccountPaths(registry);
  registerProductionPaths(registry);
  registerUploadLibraryPaths(registry);
  registerGettingStartedPaths(registry);

  const doc = new OpenApiGeneratorV31(registry.definitions, { sortComponents: 'alphabetically' }).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Apparel mockup service',
      version: '1.0.0',
      description:
        'Part A is the public API at /api/v1 (API keys; errors `{error: {code, message, details?}}`). Part B is the ' +
        'app routes at /api (browser session; errors `{error: string}`). Generation costs 1 token; upload, ' +
        'analysis, the catalogue and previews are free.\n\n' +
        quickStart(config.publicBaseUrl) +
        '\n## Verifying generation callbacks\n\n' +
        'A generation with a webhookUrl POSTs its outcome there (see Webhooks below), signed with your ' +
        "account's secret.\n\n" +
        webhookRecipe(),
    },
    servers: [{ url: config.publicBaseUrl }],
    security: KEY_OR_SESSION,
    tags: [
      { name: 'Account', description: 'Part B: sign up, sign in, the session' },
      { name: 'Keys', description: 'Part A key management (session only: a key cannot mint keys)' },
      { name: 'Catalogue' },
      { name: 'Designs', description: 'Upload and printability analysis' },
      { name: 'Generations', description: 'Mockups, batches and the free preview' },
      { name: 'Templates', description: "Customers' own Photoshop mockups (PSD smart objects) as render targets" },
      { name: 'Webhooks', description: 'Signed generation callbacks: the secret, the delivery log and resends' },
      { name: 'Logs', description: "The account's request log (test and live apart)" },
      { name: 'Storefront', description: 'Part B: Shopify connection, publishing, orders (preview)' },
      { name: 'Service', description: 'Health, files and this reference' },
      {
        name: 'Getting started',
        description: 'Part B: the sample designs, the front page mockups and the onboarding checklist',
      },
    ],
  });
  return doc;
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
