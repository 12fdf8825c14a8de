// OpenAPI entries of the storefront (Part B, api/routes/storefront.ts; docs/storefront.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as B from '../http/app-schemas';
import * as R from '../http/resources';
import { json, partBErrors, PUBLIC, routePath, SESSION } from './common';

export function registerStorefrontPaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
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
}
