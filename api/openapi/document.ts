// The OpenAPI 3.1 document of the whole service, generated from the zod schemas the routes parse with
// (api/http/schemas.ts, api/http/app-schemas.ts) and the response schemas the presenters are typed by
// (api/http/resources.ts). Served at GET /api/v1/openapi.json and rendered by GET /docs.
//
// test/integration/openapi.test.ts walks createApp()'s router and fails when a route is missing here (or when this
// document names a route the app does not have): a new route is documented in this file in the same change.
import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../../lib/config';
import {
  json,
  KEYED_HEADERS,
  partAErrors,
  partBErrors,
  KEY_OR_SESSION,
  SESSION,
  PUBLIC,
  ref,
  withModeHeader,
  type Responses,
} from './common';
import { registerAccountPaths } from './accounts';
import { registerProductionPaths } from './production';
import { registerTemplatePaths } from './templates';
import { registerBulkPaths } from './bulk';
import { registerUploadLibraryPaths } from './uploads';
import { quickStart, registerGettingStartedPaths } from './getting-started';
import { APP_PAGES } from '../routes/dashboard';
import * as B from '../http/app-schemas';
import * as R from '../http/resources';
import * as L from '../http/logs';
import * as A from '../http/schemas';

function register(registry: OpenAPIRegistry): void {
  const path = (r: RouteConfig) => registry.registerPath(withModeHeader(r));

  // ---------------------------------------------------------------- service
  path({
    method: 'get',
    path: '/healthz',
    tags: ['Service'],
    summary: 'Liveness',
    security: PUBLIC,
    responses: { 200: json(R.health, 'the process is up') },
  });
  path({
    method: 'get',
    path: '/readyz',
    tags: ['Service'],
    summary: 'Readiness: PostgreSQL answers and a worker polls the task queue',
    security: PUBLIC,
    responses: { 200: json(R.readiness, 'ready'), 503: json(R.readiness, 'not ready: `missing` names what') },
  });
  path({
    method: 'get',
    path: '/files/{key}',
    tags: ['Service'],
    summary: 'Stored uploads, blanks and mockups (immutable, cacheable for a year)',
    security: PUBLIC,
    request: { params: z.object({ key: z.string().meta({ description: 'storage key, may contain slashes' }) }) },
    responses: {
      200: {
        description: 'the file',
        content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
        headers: { ETag: { schema: { type: 'string' } } },
      },
      304: { description: 'not modified (If-None-Match)' },
      ...partAErrors(404),
    },
  });
  path({
    method: 'get',
    path: '/docs',
    tags: ['Service'],
    summary: 'This reference, interactive, and the webhook verification recipe (HTML)',
    security: PUBLIC,
    responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  });
  // The dashboard's pages as server paths (the return addresses handed to Stripe and Shopify)
  for (const page of APP_PAGES)
    path({
      method: 'get',
      path: `/${page}`,
      tags: ['Service'],
      summary: `The dashboard's ${page} page: redirects to /#/${page} with the same query`,
      security: PUBLIC,
      responses: {
        302: {
          description: 'to the page',
          headers: { Location: { schema: { type: 'string' }, description: `/#/${page}?<the same query>` } },
        },
      },
    });
  path({
    method: 'get',
    path: '/api/v1/openapi.json',
    tags: ['Service'],
    summary: 'This document',
    security: PUBLIC,
    responses: {
      200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
    },
  });

  // ---------------------------------------------------------------- accounts (Part B)
  path({
    method: 'post',
    path: '/api/auth/signup',
    tags: ['Account'],
    summary: 'Create an account (Free plan, 50 tokens) and sign in',
    security: PUBLIC,
    request: { body: { required: true, content: { 'application/json': { schema: B.credentialsBody } } } },
    responses: {
      201: json(R.userResource, 'created; Set-Cookie carries the session', {
        'Set-Cookie': { schema: { type: 'string' }, description: 'the session cookie (HttpOnly, SameSite=Lax)' },
      }),
      ...partBErrors(400, 409, 429, 503),
    },
  });
  path({
    method: 'post',
    path: '/api/auth/login',
    tags: ['Account'],
    summary: 'Sign in',
    security: PUBLIC,
    request: { body: { required: true, content: { 'application/json': { schema: B.credentialsBody } } } },
    responses: {
      200: json(R.userResource, 'signed in; Set-Cookie carries the session', {
        'Set-Cookie': { schema: { type: 'string' }, description: 'the session cookie (HttpOnly, SameSite=Lax)' },
      }),
      ...partBErrors(400, 401, 429, 503),
    },
  });
  path({
    method: 'post',
    path: '/api/auth/logout',
    tags: ['Account'],
    summary: 'Sign out (ends the session; harmless without one)',
    security: PUBLIC,
    responses: { 204: { description: 'signed out' } },
  });
  path({
    method: 'get',
    path: '/api/auth/me',
    tags: ['Account'],
    summary: 'The signed-in account: plan and token balance',
    security: SESSION,
    responses: { 200: json(R.userResource, 'the account'), ...partBErrors(401) },
  });
  path({
    method: 'get',
    path: '/api/auth/session',
    tags: ['Account'],
    summary: 'Who is signed in: the account, or {user: null} without a valid session (never 401)',
    security: PUBLIC,
    responses: { 200: json(R.sessionResource, 'the account, or null when signed out') },
  });

  // ---------------------------------------------------------------- keys and the signing secret (session)
  path({
    method: 'post',
    path: '/api/v1/keys',
    tags: ['Keys'],
    summary: 'Create an API key (the full key is shown once)',
    security: SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: A.createKeyBody } } } },
    responses: { 201: json(R.keyCreated, 'created'), ...partAErrors(400, 401, 409) },
  });
  path({
    method: 'get',
    path: '/api/v1/keys',
    tags: ['Keys'],
    summary: "List the account's keys with status and last use",
    security: SESSION,
    responses: { 200: json(R.keyList, 'newest first'), ...partAErrors(401) },
  });
  path({
    method: 'delete',
    path: '/api/v1/keys/{keyId}',
    tags: ['Keys'],
    summary: 'Revoke a key, or delete it with permanent=true',
    security: SESSION,
    request: { params: z.object({ keyId: A.keyIdParam }), query: A.deleteKeyQuery },
    responses: {
      200: {
        description: 'revoked (the key resource) or deleted',
        content: { 'application/json': { schema: z.union([R.keyResource, R.keyDeleted]) } },
      },
      ...partAErrors(400, 401, 404),
    },
  });
  path({
    method: 'get',
    path: '/api/v1/webhooks/secret',
    tags: ['Webhooks'],
    summary: 'The signing secret of generation callbacks (created on first read)',
    security: SESSION,
    responses: { 200: json(R.webhookSecret, 'the secret (Cache-Control: no-store)'), ...partAErrors(401) },
  });
  path({
    method: 'post',
    path: '/api/v1/webhooks/secret/rotate',
    tags: ['Webhooks'],
    summary: 'Rotate the signing secret; the previous one also signs during the grace period',
    security: SESSION,
    responses: { 200: json(R.webhookSecret, 'the new secret'), ...partAErrors(401) },
  });

  // ---------------------------------------------------------------- catalogue
  const keyed = (statuses: number[]) => partAErrors(401, 403, 429, ...statuses);
  path({
    method: 'get',
    path: '/api/v1/garments',
    tags: ['Catalogue'],
    summary: 'List garments (cursor pages)',
    security: KEY_OR_SESSION,
    request: { query: A.garmentListQuery },
    responses: { 200: json(R.garmentPage, 'a page', KEYED_HEADERS), ...keyed([400]) },
  });
  path({
    method: 'get',
    path: '/api/v1/garments/{garmentId}',
    tags: ['Catalogue'],
    summary: 'One garment',
    security: KEY_OR_SESSION,
    request: { params: z.object({ garmentId: z.string() }) },
    responses: { 200: json(R.garmentResource, 'the garment', KEYED_HEADERS), ...keyed([404]) },
  });

  // ---------------------------------------------------------------- Idempotency-Key (upload, generate, batch)
  const idempotencyHeaders = z.object({ 'Idempotency-Key': A.idempotencyKeyHeader.optional() });
  const REPLAYABLE_HEADERS = { ...KEYED_HEADERS, 'Idempotent-Replayed': ref('Idempotent-Replayed') };
  const idempotencyErrors: Responses = {
    409: json(
      R.partAError,
      'idempotency_conflict: the Idempotency-Key was used for a different request within 24 hours; ' +
        'idempotency_key_in_use: a request with this key is still running (Retry-After)',
      { 'Retry-After': ref('Retry-After') },
    ),
  };

  // ---------------------------------------------------------------- uploads and analysis
  path({
    method: 'post',
    path: '/api/v1/upload',
    tags: ['Designs'],
    summary: 'Upload a design (free): multipart part `file`, or JSON imageData',
    security: KEY_OR_SESSION,
    request: {
      headers: idempotencyHeaders,
      body: {
        required: true,
        content: {
          'multipart/form-data': { schema: A.uploadMultipartBody },
          'application/json': { schema: A.uploadJsonBody },
        },
      },
    },
    description:
      'An account sending bytes it has uploaded before gets that upload back (200, same id and URLs) and nothing is ' +
      'stored. 413 storage_quota_exceeded when the upload would take the account past its storage quota ' +
      '(details.usedBytes, requiredBytes, limitBytes). With an Idempotency-Key, the same image (whichever form ' +
      'carries it) within 24 hours replays the first answer.',
    responses: {
      201: json(R.uploadResource, 'stored', REPLAYABLE_HEADERS),
      200: json(R.uploadResource, 'the same bytes were uploaded before: that upload', REPLAYABLE_HEADERS),
      ...keyed([400, 413, 503]),
      ...idempotencyErrors,
    },
  });
  path({
    method: 'post',
    path: '/api/v1/analyze',
    tags: ['Designs'],
    summary: 'Printability analysis (free): colors, Pantone, technique, prices, warnings',
    security: KEY_OR_SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: A.analyzeBody } } } },
    responses: { 200: json(R.analysisResource, 'the analysis', KEYED_HEADERS), ...keyed([400, 413, 503]) },
  });

  // prettier-ignore
  registerTemplatePaths({ path, keyed, security: KEY_OR_SESSION, keyedHeaders: KEYED_HEADERS, replayableHeaders: REPLAYABLE_HEADERS, idempotencyHeaders, idempotencyErrors });
  // prettier-ignore
  registerBulkPaths({ path, keyed, security: KEY_OR_SESSION, keyedHeaders: KEYED_HEADERS, replayableHeaders: REPLAYABLE_HEADERS, idempotencyHeaders, idempotencyErrors });

  // ---------------------------------------------------------------- generations
  const prefer = idempotencyHeaders.extend({
    Prefer: z
      .string()
      .optional()
      .meta({ description: '`respond-async`: answer 202 at once instead of waiting for the mockup' }),
  });
  path({
    method: 'post',
    path: '/api/v1/generate',
    tags: ['Generations'],
    summary: 'Make a mockup (1 token; none with a test key)',
    description:
      'Synchronous by default: 200 with the completed (or failed) generation. 202 with a Location to poll when it ' +
      'takes longer than the synchronous budget, or when asked with Prefer: respond-async. With an ' +
      'Idempotency-Key, a retry with the same body within 24 hours replays the first answer without a new charge. ' +
      'On a garment (garmentId) or on one of your templates (templateId: a design in a smart object, or designs[] ' +
      'for several; 409 while the template is processing or when its import failed; docs/templates.md).',
    security: KEY_OR_SESSION,
    request: {
      headers: prefer,
      body: {
        required: true,
        content: { 'application/json': { schema: z.union([A.generateBody, A.templateGenerateBody]) } },
      },
    },
    responses: {
      200: json(R.generationResource, 'finished', REPLAYABLE_HEADERS),
      202: json(R.generationResource, 'accepted, still running', {
        ...REPLAYABLE_HEADERS,
        Location: { schema: { type: 'string' }, description: 'GET this generation' },
      }),
      ...keyed([400, 402, 404, 409]),
      ...idempotencyErrors,
    },
  });
  path({
    method: 'post',
    path: '/api/v1/generate/batch',
    tags: ['Generations'],
    summary: 'One design on up to 25 colors or zones (1 token each, none with a test key; all or nothing)',
    description:
      'With an Idempotency-Key, a retry with the same body within 24 hours replays the first answer without a ' +
      'new charge.',
    security: KEY_OR_SESSION,
    request: { headers: prefer, body: { required: true, content: { 'application/json': { schema: A.batchBody } } } },
    responses: {
      200: json(R.batchResult, 'all finished', REPLAYABLE_HEADERS),
      202: json(R.batchResult, 'accepted, still running', REPLAYABLE_HEADERS),
      ...keyed([400, 402, 404]),
      ...idempotencyErrors,
    },
  });
  path({
    method: 'post',
    path: '/api/v1/preview',
    tags: ['Generations'],
    summary: 'Placement preview (free): a JPEG at most 640 px on its long side, from the same engine',
    description:
      'The generate body without webhookUrl. Rendered at once by the compositing engine that makes paid mockups, ' +
      'on the blank shrunk to 640 px: the same placement gives the same picture, smaller. Its own budget of 120 a ' +
      'minute per key (RATE_LIMIT_PREVIEW_PER_MINUTE), not counted in the key minute and hour windows. On a ' +
      'template (templateId): the template generate body without webhookUrl, the render scaled to 640 px (no ' +
      'X-Print-Area, X-Design-Box or X-Placement-Basis).',
    security: KEY_OR_SESSION,
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: z.union([A.previewBody, A.templatePreviewBody]) } },
      },
    },
    responses: {
      200: {
        description: 'the preview',
        content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } },
        headers: {
          ...KEYED_HEADERS,
          'X-Preview-Size': { schema: { type: 'string' }, description: '<width>x<height> of the JPEG' },
          'X-Print-Area': {
            schema: { type: 'string' },
            description: "<left>,<top>,<width>,<height> of the print zone used, in the preview's pixels",
          },
          'X-Design-Box': {
            schema: { type: 'string' },
            description: "<left>,<top>,<width>,<height> of the unrotated design, in the preview's pixels",
          },
          'X-Placement-Basis': {
            schema: { type: 'string', enum: ['image', 'garment'] },
            description: 'what the print zone was placed relative to (as placementBasis of a generation)',
          },
          'X-Garment-Box': {
            schema: { type: 'string' },
            description: "<left>,<top>,<width>,<height> of the garment found in a client's own blank photo, when found",
          },
          'X-Warnings': {
            schema: { type: 'string' },
            description:
              'JSON array of {code, message} (non-ASCII as \\u escapes): garment_not_found (no garment found in a ' +
              "client's photo: the zone is in fractions of the image) or zone_clipped (the fitted zone is cut by the " +
              "photo's edge), as in a generation's warnings; [] when none",
          },
        },
      },
      ...keyed([400, 404, 409, 503]),
    },
  });
  path({
    method: 'get',
    path: '/api/v1/generations',
    tags: ['Generations'],
    summary: "The account's generations, newest first (cursor pages)",
    security: KEY_OR_SESSION,
    request: { query: A.generationListQuery },
    responses: { 200: json(R.generationPage, 'a page', KEYED_HEADERS), ...keyed([400]) },
  });
  path({
    method: 'get',
    path: '/api/v1/generations/{generationId}',
    tags: ['Generations'],
    summary: 'One generation',
    security: KEY_OR_SESSION,
    request: { params: z.object({ generationId: A.generationIdParam }) },
    responses: { 200: json(R.generationResource, 'the generation', KEYED_HEADERS), ...keyed([404]) },
  });
  path({
    method: 'get',
    path: '/api/v1/generations/{generationId}/deliveries',
    tags: ['Webhooks'],
    summary: "A generation's callback deliveries and every attempt",
    security: KEY_OR_SESSION,
    request: { params: z.object({ generationId: A.generationIdParam }) },
    responses: { 200: json(R.deliveryList, 'the deliveries', KEYED_HEADERS), ...keyed([404]) },
  });
  path({
    method: 'post',
    path: '/api/v1/generations/{generationId}/deliveries',
    tags: ['Webhooks'],
    summary: "Resend a finished generation's callback as a new signed delivery",
    description:
      "Sends the generation's callback again (the first callback's exact body, or the one it would have sent) to " +
      "`url` or the generation's webhookUrl, as a new delivery with its own id, retried like any other. 409 while " +
      'the generation is still running; 429 beyond DELIVERY_RESENDS_PER_HOUR (30) resends per account per hour ' +
      '(details.scope `delivery-resends-hour`).',
    security: KEY_OR_SESSION,
    request: {
      params: z.object({ generationId: A.generationIdParam }),
      body: { required: false, content: { 'application/json': { schema: L.resendBody } } },
    },
    responses: { 202: json(L.resendAccepted, 'the delivery, pending', KEYED_HEADERS), ...keyed([400, 404, 409]) },
  });
  path({
    method: 'get',
    path: '/api/v1/requests',
    tags: ['Logs'],
    summary: "The account's request log, newest first (cursor pages)",
    description:
      "Keyed Part A requests of the caller's mode: time, method, route pattern, status, duration, request id, error " +
      'code, key. No bodies, query strings or secrets. At most the 1,000 newest per key, kept 30 days.',
    security: KEY_OR_SESSION,
    request: { query: L.requestLogQuery },
    responses: { 200: json(L.requestLogPage, 'a page', KEYED_HEADERS), ...keyed([400]) },
  });

  // ---------------------------------------------------------------- storefront (Part B, preview)
  path({
    method: 'post',
    path: '/api/storefront/connect/install',
    tags: ['Storefront'],
    summary: 'Start connecting a Shopify store (OAuth); at most 10 a minute per user',
    security: SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: B.installBody } } } },
    responses: { 200: json(R.installStarted, 'where to send the merchant'), ...partBErrors(400, 401, 429, 503) },
  });
  path({
    method: 'get',
    path: '/api/storefront/callback',
    tags: ['Storefront'],
    summary: "Shopify's OAuth redirect: signed with the app secret, and finished only in the installing user's session",
    description:
      'The state is single use and bound to the user who called install: without a session, or with another ' +
      "user's, nothing is connected and the answer is 400 Invalid state (the state stays usable by its user).",
    security: SESSION,
    request: {
      query: z.object({}).catchall(z.string()).meta({ description: 'code, hmac, host, shop, state, timestamp' }),
    },
    responses: {
      302: {
        description: 'back to the dashboard: /storefront?connected=<connection id> ("Store connected")',
        headers: { Location: { schema: { type: 'string' } } },
      },
      ...partBErrors(400, 502, 503),
    },
  });
  path({
    method: 'get',
    path: '/api/storefront/app',
    tags: ['Storefront'],
    summary: "The app URL: an install started from Shopify's side (shop, hmac, timestamp, no state)",
    description:
      "The hmac is checked as the callback's is. A signed-in user is sent to the authorize URL of a fresh install " +
      'for the shop (counted in the install limit); a signed-out browser to /storefront?shop=<shop>, which signs ' +
      'in first and then asks to press Connect.',
    security: PUBLIC,
    request: {
      query: z.object({}).catchall(z.string()).meta({ description: 'hmac, host, shop, timestamp' }),
    },
    responses: {
      302: {
        description: "the shop's authorize page, or the dashboard's Storefront page to sign in first",
        headers: { Location: { schema: { type: 'string' } } },
      },
      ...partBErrors(400, 429, 503),
    },
  });
  path({
    method: 'get',
    path: '/api/storefront/connect',
    tags: ['Storefront'],
    summary: 'Connected stores',
    security: SESSION,
    responses: { 200: json(R.connectionList, 'the connections'), ...partBErrors(401) },
  });
  path({
    method: 'delete',
    path: '/api/storefront/connect/{id}',
    tags: ['Storefront'],
    summary: 'Disconnect a store',
    security: SESSION,
    request: { params: z.object({ id: B.storefrontIdParam('shc') }) },
    responses: { 200: json(R.disconnected, 'disconnected'), ...partBErrors(401, 404) },
  });
  path({
    method: 'post',
    path: '/api/storefront/publish',
    tags: ['Storefront'],
    summary: "Publish a mockup as a product: a completed generation's, or a completed design-chat job's",
    description:
      'Exactly one source: `generationId`, or `chatJobId` with `mockupIndex` (else 400). The source not the ' +
      "user's (or no such mockup) 404, not completed 409. Both answers carry the unit `price`, `costs` and `margin`.",
    security: SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: B.publishBody } } } },
    responses: {
      200: json(R.publishAnswer, 'published'),
      202: json(R.publishAnswer, 'still publishing'),
      ...partBErrors(400, 401, 404, 409, 502, 503),
    },
  });
  path({
    method: 'get',
    path: '/api/storefront/costs',
    tags: ['Storefront'],
    summary: 'Unit costs, price and margin of publishing a mockup (before publishing)',
    description:
      'The same source as publishing (`generationId`, or `chatJobId` with `mockupIndex`; 400, 404, 409 alike). ' +
      "Print 30, blank the garment's basePrice (15 without a catalogue garment), fulfillment 5; margin = price − " +
      'total, USD per unit, exact in cents. Reads the database only.',
    security: SESSION,
    request: { query: B.costsQuery },
    responses: { 200: json(R.costEstimate, 'the estimate'), ...partBErrors(400, 401, 404, 409) },
  });
  path({
    method: 'get',
    path: '/api/storefront/products',
    tags: ['Storefront'],
    summary: 'Published products',
    security: SESSION,
    responses: { 200: json(R.productList, 'the products'), ...partBErrors(401) },
  });
  path({
    method: 'post',
    path: '/api/storefront/webhooks/orders',
    tags: ['Storefront'],
    summary: "Shopify's order and compliance webhooks (X-Shopify-Hmac-Sha256 over the raw body)",
    security: PUBLIC,
    request: {
      headers: z.object({
        'X-Shopify-Hmac-Sha256': z.string(),
        'X-Shopify-Topic': z.string(),
        'X-Shopify-Shop-Domain': z.string(),
        'X-Shopify-Webhook-Id': z.string(),
        'X-Shopify-Event-Id': z
          .string()
          .optional()
          .meta({
            description:
              'deduplication: a delivery with an event id seen before is answered 200 and does nothing (without one: ' +
              'the same topic + body; order topics are also deduplicated on topic + body whatever the ids)',
          }),
        'X-Shopify-Triggered-At': z.string().optional().meta({
          description: 'ISO 8601; more than 48 hours ago (Shopify retries for 48 hours) or unparseable: 400',
        }),
      }),
      body: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    },
    responses: {
      200: json(R.webhookAck, 'taken in (a duplicate too: it does nothing)'),
      ...partBErrors(400, 401, 503),
    },
  });
  path({
    method: 'get',
    path: '/api/storefront/orders',
    tags: ['Storefront'],
    summary: 'Orders from the connected stores',
    security: SESSION,
    responses: { 200: json(R.orderList, 'the orders'), ...partBErrors(401) },
  });
  path({
    method: 'get',
    path: '/api/storefront/data-requests',
    tags: ['Storefront'],
    summary:
      "Customers' data requests (customers/data_request) received while the user's connection to the store was " +
      "active, each with its export of the user's own orders",
    security: SESSION,
    responses: { 200: json(R.dataRequestList, 'the exports'), ...partBErrors(401) },
  });
  path({
    method: 'post',
    path: '/api/storefront/orders/{id}/fulfillment',
    tags: ['Storefront'],
    summary: 'Send tracking for an order to its store',
    security: SESSION,
    request: {
      params: z.object({ id: B.storefrontIdParam('ord') }),
      body: { required: true, content: { 'application/json': { schema: B.fulfillmentBody } } },
    },
    responses: {
      200: json(R.fulfillmentAnswer, 'fulfilled: the order'),
      202: json(R.fulfillmentAnswer, 'still sending'),
      ...partBErrors(400, 401, 404, 409, 502, 503),
    },
  });

  // ---------------------------------------------------------------- payments (Part B)
  path({
    method: 'get',
    path: '/api/payments/plans',
    tags: ['Payments'],
    summary: 'Plans and token packs with their Stripe prices',
    security: PUBLIC,
    responses: { 200: json(R.plansList, 'the plans and packs') },
  });
  path({
    method: 'post',
    path: '/api/payments/checkout',
    tags: ['Payments'],
    summary: 'Start a Stripe Checkout for a plan (subscription) or a token pack (payment)',
    security: SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: B.checkoutBody } } } },
    responses: { 200: json(R.checkoutStarted, 'the hosted checkout page'), ...partBErrors(400, 401, 409, 502, 503) },
  });
  path({
    method: 'post',
    path: '/api/payments/portal',
    tags: ['Payments'],
    summary: "Open Stripe's billing portal (plan change, card, invoices, cancel)",
    security: SESSION,
    description: 'The portal returns the browser to `<PUBLIC_BASE_URL>/billing?portal=returned` (the Billing page).',
    responses: { 200: json(R.portalStarted, 'the portal page'), ...partBErrors(401, 502, 503) },
  });
  path({
    method: 'get',
    path: '/api/payments/subscription',
    tags: ['Payments'],
    summary: "The user's subscription",
    security: SESSION,
    responses: { 200: json(R.subscriptionAnswer, 'the subscription, or null'), ...partBErrors(401) },
  });
  path({
    method: 'post',
    path: '/api/payments/webhook',
    tags: ['Payments'],
    summary: "Stripe's events (Stripe-Signature over the raw body, 300 s tolerance); stored, then applied once",
    security: PUBLIC,
    request: {
      headers: z.object({ 'Stripe-Signature': z.string().meta({ description: 't=<unix>,v1=<hex HMAC-SHA256>' }) }),
      body: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    },
    responses: { 200: json(R.stripeAck, 'stored (also for a repeated event)'), ...partBErrors(400, 503) },
  });

  // ---------------------------------------------------------------- design chat (Part B)
  const providerHeader = {
    'X-Image-Provider': {
      description: 'who drew the graphic: gemini, openai or local',
      schema: { type: 'string' as const },
    },
  };
  path({
    method: 'post',
    path: '/api/chat',
    tags: ['Design chat'],
    summary: 'A prompt becomes a graphic, a print-ready file and two mockups (12, 45 or 90 tokens by model)',
    security: SESSION,
    description:
      'With an Idempotency-Key, a retry with the same body within 24 hours is answered from the first job (the ' +
      'same messageId or jobId; Idempotent-Replayed: true) and charged once.',
    request: {
      headers: idempotencyHeaders,
      body: { required: true, content: { 'application/json': { schema: B.chatBody } } },
    },
    responses: {
      200: json(R.chatAnswer, 'done', { ...providerHeader, 'Idempotent-Replayed': ref('Idempotent-Replayed') }),
      202: json(R.chatRunning, 'still running after CHAT_SYNC_TIMEOUT_MS: poll GET /api/chat/jobs/{jobId}', {
        'Idempotent-Replayed': ref('Idempotent-Replayed'),
      }),
      ...partBErrors(400, 401, 402, 403, 404, 429),
      409: json(
        R.partBError,
        '"Idempotency-Key was used with a different request" (within 24 hours), or a request with this key is ' +
          'still running (Retry-After)',
        { 'Retry-After': ref('Retry-After') },
      ),
      500: json(R.partBError, 'Generation failed: every provider failed; the tokens were refunded'),
    },
  });
  path({
    method: 'get',
    path: '/api/chat/jobs/{jobId}',
    tags: ['Design chat'],
    summary: 'A chat job: still running, or the answer POST /api/chat would have given',
    security: SESSION,
    request: { params: z.object({ jobId: z.string().meta({ description: 'job_<n>_<suffix>' }) }) },
    responses: {
      200: json(R.chatAnswer, 'done', providerHeader),
      202: json(R.chatRunning, 'still running'),
      ...partBErrors(400, 401, 402, 404),
      500: json(R.partBError, 'Generation failed'),
    },
  });
  path({
    method: 'get',
    path: '/api/chat/threads',
    tags: ['Design chat'],
    summary: "The user's threads, newest first",
    security: SESSION,
    request: { query: B.threadsQuery },
    responses: { 200: json(R.chatThreadPage, 'a page of threads'), ...partBErrors(400, 401) },
  });
  path({
    method: 'get',
    path: '/api/chat/threads/{id}',
    tags: ['Design chat'],
    summary: 'A thread with its messages, graphics, print files and mockups',
    security: SESSION,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: json(R.chatThread, 'the thread'), ...partBErrors(401, 404) },
  });

  // ---------------------------------------------------------------- outbound: generation callbacks
  registry.registerWebhook({
    method: 'post',
    path: 'generationCallback',
    tags: ['Webhooks'],
    summary: 'Sent to webhookUrl when a generation completes or fails',
    description:
      'Verify X-Mockup-Signature before trusting the body: `t=<unix seconds>,v1=<hex HMAC-SHA256>` of ' +
      '`<t>.<raw body>` keyed with your signing secret (GET /api/v1/webhooks/secret); more than one v1 during a ' +
      'rotation. Answer 2xx within 10 seconds; other answers are retried with backoff for 24 hours. Recipe: /docs.',
    security: PUBLIC,
    request: {
      headers: z.object({
        'X-Mockup-Signature': z.string().meta({ description: 't=<unix seconds>,v1=<hex signature>[,v1=…]' }),
        'X-Mockup-Event': z.enum(['generation.completed', 'generation.failed']),
        'X-Mockup-Delivery-Id': z.string().meta({ description: 'the same on every retry: dedupe on it' }),
        'X-Mockup-Timestamp': z.string().meta({ description: 'Unix seconds when this attempt was signed' }),
      }),
      body: { required: true, content: { 'application/json': { schema: R.webhookPayload } } },
    },
    responses: { 200: { description: 'received (any 2xx counts)' } },
  });
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
