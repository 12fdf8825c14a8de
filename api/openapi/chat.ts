// OpenAPI entries of the design chat (Part B, api/routes/chat.ts; docs/chat.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as B from '../http/app-schemas';
import * as R from '../http/resources';
import { idempotencyHeaders, json, partBErrors, ref, routePath, SESSION } from './common';

export function registerChatPaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
  // ---------------------------------------------------------------- design chat (Part B)
  const providerHeader = {
    'X-Image-Provider': {
      description: 'who drew the graphic: gemini, openai or local',
      schema: { type: 'string' as const },
    },
  };
  path({
    method: 'post',
    path: '/api/chat',
    tags: ['Design chat'],
    summary: 'A prompt becomes a graphic, a print-ready file and two mockups (12, 45 or 90 tokens by model)',
    security: SESSION,
    description:
      'With an Idempotency-Key, a retry with the same body within 24 hours is answered from the first job (the ' +
      'same messageId or jobId; Idempotent-Replayed: true) and charged once.',
    request: {
      headers: idempotencyHeaders,
      body: { required: true, content: { 'application/json': { schema: B.chatBody } } },
    },
    responses: {
      200: json(R.chatAnswer, 'done', { ...providerHeader, 'Idempotent-Replayed': ref('Idempotent-Replayed') }),
      202: json(R.chatRunning, 'still running after CHAT_SYNC_TIMEOUT_MS: poll GET /api/chat/jobs/{jobId}', {
        'Idempotent-Replayed': ref('Idempotent-Replayed'),
      }),
      ...partBErrors(400, 401, 402, 403, 404, 429),
      409: json(
        R.partBError,
        '"Idempotency-Key was used with a different request" (within 24 hours), or a request with this key is ' +
          'still running (Retry-After)',
        { 'Retry-After': ref('Retry-After') },
      ),
      500: json(R.partBError, 'Generation failed: every provider failed; the tokens were refunded'),
    },
  });
  path({
    method: 'get',
    path: '/api/chat/jobs/{jobId}',
    tags: ['Design chat'],
    summary: 'A chat job: still running, or the answer POST /api/chat would have given',
    security: SESSION,
    request: { params: z.object({ jobId: z.string().meta({ description: 'job_<n>_<suffix>' }) }) },
    responses: {
      200: json(R.chatAnswer, 'done', providerHeader),
      202: json(R.chatRunning, 'still running'),
      ...partBErrors(400, 401, 402, 404),
      500: json(R.partBError, 'Generation failed'),
    },
  });
  path({
    method: 'get',
    path: '/api/chat/threads',
    tags: ['Design chat'],
    summary: "The user's threads, newest first",
    security: SESSION,
    request: { query: B.threadsQuery },
    responses: { 200: json(R.chatThreadPage, 'a page of threads'), ...partBErrors(400, 401) },
  });
  path({
    method: 'get',
    path: '/api/chat/threads/{id}',
    tags: ['Design chat'],
    summary: 'A thread with its messages, graphics, print files and mockups',
    security: SESSION,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: json(R.chatThread, 'the thread'), ...partBErrors(401, 404) },
  });
}
