// OpenAPI entries of the template routes (api/routes/templates.ts, docs/templates.md). document.ts hands over its
// route helpers, so these entries carry the same headers, security and error answers as every keyed Part A route.
import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as T from '../http/template-schemas';
import { json } from './common';

type Responses = RouteConfig['responses'];

export interface TemplatePathHelpers {
  path: (r: RouteConfig) => void;
  keyed: (statuses: number[]) => Responses;
  security: NonNullable<RouteConfig['security']>;
  keyedHeaders: ResponseConfig['headers'];
  replayableHeaders: ResponseConfig['headers'];
  idempotencyHeaders: z.ZodObject;
  idempotencyErrors: Responses;
}

export function registerTemplatePaths(h: TemplatePathHelpers): void {
  const { path, keyed, security } = h;
  const params = { params: z.object({ templateId: T.templateIdParam }) };
  const location = { Location: { schema: { type: 'string' as const }, description: 'GET this template' } };
  path({
    method: 'post',
    path: '/api/v1/templates',
    tags: ['Templates'],
    summary: 'Import a Photoshop mockup (PSD/PSB with a smart object) as a render target (free)',
    description:
      'The file (multipart part `file`, or JSON `url`, fetched through the SSRF guard) is checked against the ' +
      'template limits before anything is stored (a 400 whose details.reason names the limit: not_psd, truncated, ' +
      'corrupt, canvas_too_large, layer_too_large, too_many_layers, groups_too_deep, too_many_embedded_files, ' +
      'embedded_file_too_large, too_much_pixel_data, too_large, no_smart_objects; unreadable when the parser ' +
      'refuses it within the wait). The import runs as the workflow template-import-<id>: 201 with the ready ' +
      'template when it finishes within TEMPLATE_SYNC_TIMEOUT_MS (20 s), else (or with Prefer: respond-async) 202 ' +
      'with the processing template and a Location to poll. 409 conflict past TEMPLATES_PER_ACCOUNT (100). With an ' +
      'Idempotency-Key, the same file (or JSON body) within 24 hours replays the first answer.',
    security,
    request: {
      headers: h.idempotencyHeaders.extend({
        Prefer: z.string().optional().meta({ description: '`respond-async`: answer 202 at once' }),
      }),
      body: {
        required: true,
        content: {
          'multipart/form-data': { schema: T.templateMultipartBody },
          'application/json': { schema: T.templateUrlBody },
        },
      },
    },
    responses: {
      201: json(T.templateResource, 'imported and ready', h.replayableHeaders),
      202: json(T.templateResource, 'accepted, still importing', { ...h.replayableHeaders, ...location }),
      ...keyed([400, 409, 413, 503]),
      ...h.idempotencyErrors,
    },
  });
  path({
    method: 'get',
    path: '/api/v1/templates',
    tags: ['Templates'],
    summary: "List the account's templates of the request's mode, newest first (cursor pages)",
    security,
    request: { query: T.templateListQuery },
    responses: { 200: json(T.templatePage, 'a page', h.keyedHeaders), ...keyed([400]) },
  });
  path({
    method: 'get',
    path: '/api/v1/templates/{templateId}',
    tags: ['Templates'],
    summary: 'One template (poll it while processing)',
    security,
    request: params,
    responses: { 200: json(T.templateResource, 'the template', h.keyedHeaders), ...keyed([404]) },
  });
  path({
    method: 'delete',
    path: '/api/v1/templates/{templateId}',
    tags: ['Templates'],
    summary: 'Delete a template and its files (a running import is cancelled)',
    security,
    request: params,
    responses: { 204: { description: 'deleted' }, ...keyed([404]) },
  });
}
