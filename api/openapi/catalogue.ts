// OpenAPI entries of the garment catalogue (api/routes/garments.ts).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as R from '../http/resources';
import * as A from '../http/schemas';
import { json, KEY_OR_SESSION, keyed, KEYED_HEADERS, routePath } from './common';

export function registerCataloguePaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
  // ---------------------------------------------------------------- catalogue
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
}
