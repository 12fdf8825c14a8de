// OpenAPI entries of the service's own routes: health, readiness, stored files, this reference and the
// dashboard's page paths (api/routes/health.ts, files.ts, docs.ts, dashboard.ts).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { APP_PAGES } from '../routes/dashboard';
import * as R from '../http/resources';
import { json, partAErrors, PUBLIC, routePath } from './common';

export function registerServicePaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
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
}
