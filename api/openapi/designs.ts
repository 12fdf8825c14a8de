// OpenAPI entries of upload and printability analysis (api/routes/upload.ts, analyze.ts; docs/uploads-and-analysis.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as R from '../http/resources';
import * as A from '../http/schemas';
import {
  idempotencyErrors,
  idempotencyHeaders,
  json,
  KEY_OR_SESSION,
  keyed,
  KEYED_HEADERS,
  REPLAYABLE_HEADERS,
  routePath,
} from './common';

export function registerDesignPaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
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
}
