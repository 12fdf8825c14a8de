// OpenAPI entries of the bulk render routes (api/routes/bulk.ts, docs/generation.md#bulk-renders). document.ts hands
// over its route helpers (the templates' set), so these entries carry the same headers, security and error answers
// as every keyed Part A route.
import { z } from 'zod';
import * as K from '../http/bulk-schemas';
import { json } from './common';
import type { TemplatePathHelpers } from './templates';

export function registerBulkPaths(h: TemplatePathHelpers): void {
  const { path, keyed, security } = h;
  const params = { params: z.object({ bulkId: K.bulkIdParam }) };
  const location = { Location: { schema: { type: 'string' as const }, description: 'GET this bulk' } };
  path({
    method: 'post',
    path: '/api/v1/generate/bulk',
    tags: ['Generations'],
    summary:
      'Every design on every colour and zone of every garment: one generation each (1 token each, all or nothing)',
    description:
      'The request expands to designs x targets x colours (default: every available colour) x zones (default ' +
      'front); above BULK_MAX_ITEMS (500) it is refused with 400 (details.total, details.max). Every item is ' +
      'checked, then all are recorded and charged in one transaction (402 insufficient_tokens with details.required ' +
      'and details.available when short: nothing charged), and workflow bulk-<id> renders them, BULK_CONCURRENCY (8) ' +
      "at a time, behind other accounts' single generates. A design's darkDesignUrl is used on colours darker than " +
      'CIELAB L* 50. Each item is an ordinary generation (low_contrast warnings, test-mode watermark, its own ' +
      'generation.completed/failed only with itemWebhooks); a failed item is refunded. When every item has finished, ' +
      'one ZIP of the mockups (<design>-<garment>-<colour>-<zone>.jpg) is stored (archiveUrl) and webhookUrl gets ' +
      'one signed bulk.completed. Counts as one request against the generate rate limit. With an Idempotency-Key, ' +
      'a retry with the same body within 24 hours answers the same bulk without a new charge.',
    security,
    request: {
      headers: h.idempotencyHeaders,
      body: { required: true, content: { 'application/json': { schema: K.bulkBody } } },
    },
    responses: {
      202: json(K.bulkResource, 'accepted, running', { ...h.replayableHeaders, ...location }),
      ...keyed([400, 402, 404]),
      ...h.idempotencyErrors,
    },
  });
  path({
    method: 'get',
    path: '/api/v1/generate/bulk/{bulkId}',
    tags: ['Generations'],
    summary: "A bulk's progress and a page of its generations, in the order of the expansion (cursor pages)",
    security,
    request: { ...params, query: K.bulkQuery },
    responses: { 200: json(K.bulkPageResource, 'the bulk', h.keyedHeaders), ...keyed([400, 404]) },
  });
  path({
    method: 'post',
    path: '/api/v1/generate/bulk/{bulkId}/cancel',
    tags: ['Generations'],
    summary:
      'Cancel a running bulk: every item not yet begun is failed and refunded at once, items in flight finish, the ' +
      'archive holds what was rendered (a bulk that has ended is answered as it is)',
    security,
    request: params,
    responses: { 200: json(K.bulkResource, 'the bulk', h.keyedHeaders), ...keyed([404]) },
  });
}
