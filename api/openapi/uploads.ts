// OpenAPI entries of the design library (api/routes/upload-library.ts, docs/uploads-and-analysis.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as U from '../http/upload-library-schemas';
import { json, KEY_OR_SESSION, KEYED_HEADERS, partAErrors, withModeHeader } from './common';

const idParam = { params: z.object({ id: z.string().meta({ description: 'upl_<number>_<suffix>' }) }) };
const keyed = (...statuses: number[]) => partAErrors(401, 403, 429, ...statuses);

export function registerUploadLibraryPaths(registry: OpenAPIRegistry): void {
  const path = (r: Parameters<typeof withModeHeader>[0]) => registry.registerPath(withModeHeader(r));
  path({
    method: 'get',
    path: '/api/v1/uploads',
    tags: ['Designs'],
    summary: "The account's uploads of the key's mode, newest first (cursor pages; q filters by name)",
    security: KEY_OR_SESSION,
    request: { query: U.uploadListQuery },
    responses: { 200: json(U.uploadPage, 'a page', KEYED_HEADERS), ...keyed(400) },
  });
  path({
    method: 'get',
    path: '/api/v1/uploads/{id}',
    tags: ['Designs'],
    summary: 'One upload with its name, creation time and latest analysis',
    security: KEY_OR_SESSION,
    request: idParam,
    responses: { 200: json(U.libraryUploadResource, 'the upload', KEYED_HEADERS), ...keyed(404) },
  });
  path({
    method: 'get',
    path: '/api/v1/uploads/{id}/contrast',
    tags: ['Designs'],
    summary:
      "The design on each colour of a garment: the low_contrast warning a generation would carry (WCAG contrast of the design's inks), and which colours are dark",
    security: KEY_OR_SESSION,
    request: { ...idParam, query: U.contrastQuery },
    responses: { 200: json(U.contrastResource, 'per colour', KEYED_HEADERS), ...keyed(400, 404) },
  });
  path({
    method: 'patch',
    path: '/api/v1/uploads/{id}',
    tags: ['Designs'],
    summary: 'Rename an upload',
    security: KEY_OR_SESSION,
    request: { ...idParam, body: { required: true, content: { 'application/json': { schema: U.renameUploadBody } } } },
    responses: { 200: json(U.libraryUploadResource, 'renamed', KEYED_HEADERS), ...keyed(400, 404) },
  });
  path({
    method: 'delete',
    path: '/api/v1/uploads/{id}',
    tags: ['Designs'],
    summary:
      'Delete an upload: its files are erased at once (its url then 404s), its bytes leave the storage quota, a later ' +
      'generate naming it is 400 "design was deleted"; mockups made from it stay',
    security: KEY_OR_SESSION,
    request: idParam,
    responses: { 204: { description: 'deleted' }, ...keyed(404) },
  });
}
