// The OpenAPI document: every route createApp() mounts is in it (and nothing else), a real OpenAPI 3.1
// parser accepts it, it is served at GET /api/v1/openapi.json, and what the routes answer fits the schemas it is
// generated from. GET /docs serves Scalar's reference from node_modules with the webhook recipe.
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import sharp from 'sharp';
import type { z } from 'zod';
import { createApp } from '../../api/app';
import * as R from '../../api/http/resources';
import { buildOpenApiDocument, webhookRecipe } from '../../api/openapi/document';
import { createLogger } from '../../lib/log';
import { account, http } from '../helpers/http';
import { appRoutes } from '../helpers/routes';
import { startStack, type Stack } from '../helpers/stack';

/** Every (method, path) the app routes, in OpenAPI syntax: `:id` → `{id}`, `*key` → `{key}`. */
const routesOf = (app: Parameters<typeof appRoutes>[0]) =>
  appRoutes(app).map(
    (r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)/g, '{$1}')}`,
  );

function documented(doc: ReturnType<typeof buildOpenApiDocument>): string[] {
  const out: string[] = [];
  for (const [p, item] of Object.entries(doc.paths ?? {}))
    for (const m of ['get', 'post', 'put', 'delete', 'patch', 'head', 'options'])
      if ((item as Record<string, unknown>)[m]) out.push(`${m} ${p}`);
  return out;
}

/** Parses a body with a documented schema, with the issues in the failure message. */
function fits(schema: z.ZodType, body: unknown, what: string) {
  const r = schema.safeParse(body);
  assert.ok(
    r.success,
    `${what} does not match its documented schema: ${JSON.stringify(r.error?.issues)}\n${JSON.stringify(body)}`,
  );
}

describe('OpenAPI document (GET /api/v1/openapi.json) and the reference (GET /docs)', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('openapi');
  });
  after(async () => {
    await stack?.stop();
  });

  it('documents every route of createApp(), and only those', () => {
    const app = createApp({
      config: stack.config,
      sql: stack.sql,
      storage: stack.storage,
      temporal: stack.client,
      log: createLogger({ level: 'error' }),
    });
    const routes = new Set(routesOf(app));
    assert.ok(routes.size > 30, `found only ${routes.size} routes: is the router walk still right?`);
    assert.ok(routes.has('post /api/v1/preview') && routes.has('delete /api/storefront/connect/{id}'));
    const doc = new Set(documented(buildOpenApiDocument(stack.config)));
    const missing = [...routes].filter((r) => !doc.has(r));
    const extra = [...doc].filter((r) => !routes.has(r));
    assert.deepEqual(missing, [], `routes missing from api/openapi/document.ts: ${missing.join(', ')}`);
    assert.deepEqual(extra, [], `documented routes the app does not have: ${extra.join(', ')}`);
  });

  it('is a valid OpenAPI 3.1 document for a real parser', async () => {
    const res = await http(stack.baseUrl, 'GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const result = await validate(structuredClone(res.body));
    assert.ok(result.valid, JSON.stringify(result.valid ? null : result.errors, null, 2));
    // and the parser does refuse a broken one (the check can fail)
    const broken = structuredClone(res.body);
    broken.paths['/api/v1/preview'].post.responses = { twohundred: 'not a response' };
    assert.equal((await validate(broken)).valid, false);
  });

  it('carries both error envelopes, both security schemes, the limit and token headers, and the signed callback', async () => {
    const doc = (await http(stack.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const schemas = doc.components.schemas;
    assert.deepEqual(Object.keys(schemas.Error.properties), ['error']);
    assert.equal(schemas.AppError.properties.error.type, 'string');
    assert.deepEqual(doc.components.securitySchemes.bearerKey, {
      type: 'http',
      scheme: 'bearer',
      description: doc.components.securitySchemes.bearerKey.description,
    });
    assert.equal(doc.components.securitySchemes.sessionCookie.in, 'cookie');
    assert.equal(doc.components.securitySchemes.sessionCookie.name, stack.config.sessionCookieName);
    for (const hd of [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'X-Tokens-Remaining',
    ])
      assert.ok(doc.components.headers[hd], hd);
    const generate = doc.paths['/api/v1/generate'].post;
    assert.deepEqual(generate.security, [{ bearerKey: [] }, { sessionCookie: [] }]);
    assert.equal(
      generate.responses['200'].headers['X-Tokens-Remaining'].$ref,
      '#/components/headers/X-Tokens-Remaining',
    );
    assert.equal(generate.responses['429'].headers['Retry-After'].$ref, '#/components/headers/Retry-After');
    assert.equal(generate.responses['402'].content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.equal(
      doc.paths['/api/storefront/publish'].post.responses['401'].content['application/json'].schema.$ref,
      '#/components/schemas/AppError',
    );
    assert.deepEqual(doc.paths['/api/v1/keys'].post.security, [{ sessionCookie: [] }]);
    // requests are the routes' own schemas: strict, with the spec's ranges
    assert.equal(schemas.GenerateRequest.additionalProperties, false);
    assert.equal(schemas.Placement.properties.scale.minimum, 0.1);
    assert.equal(schemas.Placement.properties.rotation.maximum, 180);
    assert.ok(schemas.GenerateRequest.properties.webhookUrl);
    assert.equal(schemas.PreviewRequest.properties.webhookUrl, undefined);
    assert.equal(doc.paths['/api/v1/preview'].post.responses['200'].content['image/jpeg'].schema.format, 'binary');
    // the outbound callback: payload, signature header
    const hook = doc.webhooks.generationCallback.post;
    const headerNames = hook.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
    assert.ok(headerNames.includes('X-Mockup-Signature') && headerNames.includes('X-Mockup-Delivery-Id'));
    assert.equal(hook.requestBody.content['application/json'].schema.$ref, '#/components/schemas/GenerationCallback');
    // the verification recipe from docs/webhooks.md is in the description Scalar renders
    assert.match(doc.info.description, /Verifying the signature/);
    assert.match(doc.info.description, /timingSafeEqual/);
    assert.match(webhookRecipe('/nonexistent.md'), /docs\/webhooks\.md/);
  });

  it('describes what the routes really answer (responses parse with the documented schemas)', async () => {
    const acct = await account(stack.baseUrl);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: acct.cookie });
    fits(R.userResource, me.body, 'GET /api/auth/me');
    const check = await http(stack.baseUrl, 'GET', '/api/auth/session', { cookie: acct.cookie });
    fits(R.sessionResource, check.body, 'GET /api/auth/session');
    fits(R.sessionResource, (await http(stack.baseUrl, 'GET', '/api/auth/session')).body, 'GET /api/auth/session');
    const keys = await http(stack.baseUrl, 'GET', '/api/v1/keys', { cookie: acct.cookie });
    fits(R.keyList, keys.body, 'GET /api/v1/keys');
    const created = await http(stack.baseUrl, 'POST', '/api/v1/keys', { cookie: acct.cookie, json: { name: 'x' } });
    fits(R.keyCreated, created.body, 'POST /api/v1/keys');
    const revoked = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${created.body.metadata.id}`, {
      cookie: acct.cookie,
    });
    fits(R.keyResource, revoked.body, 'DELETE /api/v1/keys/<id>');
    fits(
      R.webhookSecret,
      (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: acct.cookie })).body,
      'secret',
    );
    const page = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=2', { key: acct.key });
    fits(R.garmentPage, page.body, 'GET /api/v1/garments');
    const garment = page.body.garments[0];
    fits(
      R.garmentResource,
      (await http(stack.baseUrl, 'GET', `/api/v1/garments/${garment.id}`, { key: acct.key })).body,
      'garment',
    );
    const png = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#c8102e' } })
      .png()
      .toBuffer();
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key: acct.key,
      json: { imageData: `data:image/png;base64,${png.toString('base64')}` },
    });
    fits(R.uploadResource, up.body, 'POST /api/v1/upload');
    const an = await http(stack.baseUrl, 'POST', '/api/v1/analyze', { key: acct.key, json: { imageUrl: up.body.url } });
    fits(R.analysisResource, an.body, 'POST /api/v1/analyze');
    const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: { designUrl: up.body.url, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
    });
    assert.equal(gen.status, 200, gen.text);
    fits(R.generationResource, gen.body, 'POST /api/v1/generate');
    fits(
      R.generationPage,
      (await http(stack.baseUrl, 'GET', '/api/v1/generations', { key: acct.key })).body,
      'generations',
    );
    const dl = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.body.id}/deliveries`, { key: acct.key });
    fits(R.deliveryList, dl.body, 'deliveries');
    fits(
      R.connectionList,
      (await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie })).body,
      'connections',
    );
    fits(
      R.productList,
      (await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie })).body,
      'products',
    );
    fits(
      R.costEstimate,
      (await http(stack.baseUrl, 'GET', `/api/storefront/costs?generationId=${gen.body.id}`, { cookie: acct.cookie }))
        .body,
      'GET /api/storefront/costs',
    );
    fits(
      R.orderList,
      (await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie })).body,
      'orders',
    );
    fits(R.health, (await http(stack.baseUrl, 'GET', '/healthz')).body, 'healthz');
    // the two error envelopes
    fits(
      R.partAError,
      (await http(stack.baseUrl, 'GET', '/api/v1/generations/gen_1_nope', { key: acct.key })).body,
      '404',
    );
    fits(R.partAError, (await http(stack.baseUrl, 'POST', '/api/v1/preview', { json: {} })).body, '401');
    fits(R.partBError, (await http(stack.baseUrl, 'GET', '/api/storefront/connect')).body, 'Part B 401');
    // and a wrong answer does not fit (the check can fail)
    assert.equal(R.generationResource.safeParse({ ...gen.body, status: 'done' }).success, false);
  });

  it('serves /docs: Scalar from node_modules (no CDN), pointed at the document', async () => {
    const page = await http(stack.baseUrl, 'GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    const srcs = [...page.text.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(srcs.length > 0);
    for (const s of srcs) assert.ok(s.startsWith('/'), `the page loads ${s} from elsewhere`);
    // its icon (and the one browsers ask /favicon.ico for by themselves) is served: a real ICO and the SVG
    assert.ok(srcs.includes('/favicon.ico') && srcs.includes('/favicon.svg'));
    const ico = await fetch(`${stack.baseUrl}/favicon.ico`);
    assert.equal(ico.status, 200);
    assert.match(ico.headers.get('content-type')!, /^image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = Buffer.from(await ico.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'an ICO header');
    assert.ok(bytes.readUInt16LE(4) >= 1, 'with at least one image');
    const svg = await fetch(`${stack.baseUrl}/favicon.svg`);
    assert.equal(svg.status, 200);
    assert.match(svg.headers.get('content-type')!, /^image\/svg\+xml/);
    assert.match(page.text, /"url":"\/api\/v1\/openapi.json"/);
    assert.match(page.text, /"withDefaultFonts":false/);
    const bundle = await fetch(`${stack.baseUrl}/docs/assets/standalone.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type')!, /javascript/);
    assert.ok((await bundle.arrayBuffer()).byteLength > 1_000_000);
  });
});
