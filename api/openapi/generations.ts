// OpenAPI entries of generations: generate, batch, the preview, reading them, their callbacks' deliveries and the
// request log (api/routes/generations.ts, generation-batch.ts, preview.ts,
// deliveries.ts, requests.ts), and the outbound generation callback.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as R from '../http/resources';
import * as L from '../http/logs';
import * as A from '../http/schemas';
import * as BS from '../http/batch-schemas';
import * as TG from '../http/template-generate-schemas';
import {
  idempotencyErrors,
  idempotencyHeaders,
  json,
  KEY_OR_SESSION,
  keyed,
  KEYED_HEADERS,
  PUBLIC,
  REPLAYABLE_HEADERS,
  routePath,
} from './common';

export function registerGenerationPaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
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
        content: { 'application/json': { schema: z.union([A.generateBody, TG.templateGenerateBody]) } },
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
    request: { headers: prefer, body: { required: true, content: { 'application/json': { schema: BS.batchBody } } } },
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
        content: { 'application/json': { schema: z.union([A.previewBody, TG.templatePreviewBody]) } },
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
