// Schemas of the request log (GET /api/v1/requests) and of a callback resend (POST /generations/<id>/deliveries):
// what the routes parse with and what they answer, also read by the OpenAPI document.
import { z } from 'zod';
import { cursorParam, pageLimitParam, pagination } from '../pagination';
import { httpUrl, timestamp } from './schemas';

export const requestLogQuery = z
  .strictObject({
    keyId: z
      .string()
      .regex(/^(key_[a-z0-9]{16}|session)$/, 'must be a key id (key_…) or session')
      .optional()
      .meta({ description: "one key's requests (key_…), or `session` for the dashboard's" }),
    status: z
      .enum(['2xx', '3xx', '4xx', '5xx'], { message: 'must be 2xx, 3xx, 4xx or 5xx' })
      .optional()
      .meta({ description: 'status class' }),
    route: z
      .string()
      .regex(
        /^\/(api\/v1|mcp)\/[A-Za-z0-9/:_-]{1,200}$/,
        'must be a route pattern such as /api/v1/generate or /mcp/tools/generate_mockup',
      )
      .optional()
      .meta({
        description:
          'a route pattern as listed, e.g. /api/v1/generations/:generationId, or an MCP tool as /mcp/tools/<tool>',
      }),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], { message: 'must be an HTTP method' }).optional(),
    limit: pageLimitParam,
    cursor: cursorParam,
  })
  .meta({ id: 'RequestLogQuery' });

export const requestLogEntry = z
  .object({
    id: z.string().meta({ description: 'req_<n>' }),
    createdAt: timestamp.meta({ description: 'when the request arrived' }),
    method: z.string(),
    route: z.string().meta({ description: 'the route pattern, never the path with its ids' }),
    status: z.number().int(),
    durationMs: z.number(),
    requestId: z.string().meta({ description: 'the X-Request-Id of the answer' }),
    errorCode: z.string().nullable().meta({ description: 'error.code of an error answer' }),
    keyId: z.string().nullable().meta({ description: "null for the dashboard's session calls" }),
    livemode: z.boolean(),
    via: z
      .enum(['api', 'mcp'])
      .meta({ description: '`api`: an HTTP call; `mcp`: a tool call or resource read on the MCP endpoint /mcp' }),
  })
  .meta({ id: 'RequestLogEntry' });

export const requestLogPage = z
  .object({
    requests: z.array(requestLogEntry),
    pagination,
  })
  .meta({ id: 'RequestLogPage' });

export const resendBody = z
  .strictObject({
    url: httpUrl('url')
      .optional()
      .meta({ description: "where to send it; default the generation's webhookUrl", format: 'uri' }),
  })
  .meta({ id: 'ResendRequest' });

export const deliveryAttempt = z.object({
  number: z.number().int(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number(),
  error: z.string().nullable(),
  attemptedAt: timestamp,
});

export const deliveryResource = z
  .object({
    id: z.string().meta({ description: 'dlv_<n>_<suffix>; the X-Mockup-Delivery-Id header of every attempt' }),
    event: z.enum(['generation.completed', 'generation.failed']),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    trigger: z
      .enum(['generation', 'resend'])
      .meta({ description: '`generation`: sent when the generation finished; `resend`: POST …/deliveries' }),
    createdAt: timestamp,
    finishedAt: timestamp.nullable(),
    attempts: z.array(deliveryAttempt),
  })
  .meta({ id: 'Delivery' });

export const resendAccepted = z.object({ delivery: deliveryResource }).meta({ id: 'ResendAccepted' });
