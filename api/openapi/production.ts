// OpenAPI entries of print files and production (issue 36, docs/production.md): api/routes/print-files.ts and the
// storefront's production routes.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as P from '../http/print-schemas';
import * as R from '../http/resources';
import { generationIdParam } from '../http/schemas';
import { json, KEY_OR_SESSION, KEYED_HEADERS, partAErrors, partBErrors, SESSION, withModeHeader } from './common';

export function registerProductionPaths(registry: OpenAPIRegistry): void {
  registry.registerPath(
    withModeHeader({
      method: 'get',
      path: '/api/v1/generations/{generationId}/print-file',
      tags: ['Generations'],
      summary: "The generation's print file for a garment size (free): made once, then kept",
      description:
        "The design alone on a transparent canvas of the print zone's physical size at 300 DPI (PNG, sRGB ICC " +
        'profile, pHYs), placed exactly as on the mockup, with its preflight report; on a dark garment a white ' +
        'underbase PNG too. Sizes smaller than M print on a smaller zone (docs/production.md#print-sizes). The ' +
        'first call for a size makes the file (about a second); later calls answer the same file. A render on a ' +
        "template prints on its smart object's physical size (printSize, read from the PSD's resolution): 409 " +
        'when it has none, or fills several smart objects.',
      security: KEY_OR_SESSION,
      request: { params: z.object({ generationId: generationIdParam }), query: P.printFileQuery },
      responses: {
        200: json(P.printFileResource, 'the print file', KEYED_HEADERS),
        ...partAErrors(400, 401, 403, 404, 409, 429, 503),
      },
    }),
  );
  registry.registerPath({
    method: 'post',
    path: '/api/v1/print-preflight',
    tags: ['Generations'],
    summary: "A placement's print checked before Generate (free): its size, where the design lands, its preflight",
    description:
      'The print a generation of this design, garment, colour, zone and placement would get, laid out and ' +
      'checked as its print file is (the same pixels and checks: docs/production.md#preflight), nothing made or ' +
      'kept. The studio shows these warnings before Generate, and its print view draws the print at 1:1 from ' +
      'widthIn x heightIn and designBox.',
    security: KEY_OR_SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: P.printPreflightBody } } } },
    responses: {
      200: json(P.printPreflightResource, "the print's layout and preflight", KEYED_HEADERS),
      ...partAErrors(400, 401, 403, 404, 429, 503),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/chat/jobs/{jobId}/print-file',
    tags: ['Design chat'],
    summary: "A chat mockup's print file for a garment size: the job's print asset placed as on the mockup",
    security: SESSION,
    request: {
      params: z.object({ jobId: z.string().meta({ description: 'job_<n>_<suffix>' }) }),
      query: P.chatPrintFileQuery,
    },
    responses: { 200: json(P.printFileResource, 'the print file'), ...partBErrors(400, 401, 404, 409, 503) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/storefront/orders/{id}',
    tags: ['Storefront'],
    summary: 'One order from a connected store, with its production (print files, job sheet, ZIP)',
    security: SESSION,
    request: { params: z.object({ id: z.string().meta({ description: 'ord_<…>' }) }) },
    responses: { 200: json(R.orderResource, 'the order'), ...partBErrors(401, 404) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/storefront/production-queue',
    tags: ['Storefront'],
    summary: 'The production queue: paid, unfulfilled orders in production, oldest first',
    security: SESSION,
    responses: { 200: json(R.orderList, 'the orders, oldest first'), ...partBErrors(401) },
  });
}
