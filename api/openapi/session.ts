// OpenAPI entries of signing in (Part B, api/routes/auth.ts) and of what only a session may do: API keys and the
// webhook signing secret (api/routes/keys.ts, webhooks.ts).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as B from '../http/app-schemas';
import * as R from '../http/resources';
import * as A from '../http/schemas';
import { json, partAErrors, partBErrors, PUBLIC, routePath, SESSION } from './common';

export function registerSessionPaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
  // ---------------------------------------------------------------- accounts (Part B)
  path({
    method: 'post',
    path: '/api/auth/signup',
    tags: ['Account'],
    summary: 'Create an account (Free plan, 50 tokens) and sign in',
    security: PUBLIC,
    request: { body: { required: true, content: { 'application/json': { schema: B.credentialsBody } } } },
    responses: {
      201: json(R.userResource, 'created; Set-Cookie carries the session', {
        'Set-Cookie': { schema: { type: 'string' }, description: 'the session cookie (HttpOnly, SameSite=Lax)' },
      }),
      ...partBErrors(400, 409, 429, 503),
    },
  });
  path({
    method: 'post',
    path: '/api/auth/login',
    tags: ['Account'],
    summary: 'Sign in',
    security: PUBLIC,
    request: { body: { required: true, content: { 'application/json': { schema: B.credentialsBody } } } },
    responses: {
      200: json(R.userResource, 'signed in; Set-Cookie carries the session', {
        'Set-Cookie': { schema: { type: 'string' }, description: 'the session cookie (HttpOnly, SameSite=Lax)' },
      }),
      ...partBErrors(400, 401, 429, 503),
    },
  });
  path({
    method: 'post',
    path: '/api/auth/logout',
    tags: ['Account'],
    summary: 'Sign out (ends the session; harmless without one)',
    security: PUBLIC,
    responses: { 204: { description: 'signed out' } },
  });
  path({
    method: 'get',
    path: '/api/auth/me',
    tags: ['Account'],
    summary: 'The signed-in account: plan and token balance',
    security: SESSION,
    responses: { 200: json(R.userResource, 'the account'), ...partBErrors(401) },
  });
  path({
    method: 'get',
    path: '/api/auth/session',
    tags: ['Account'],
    summary: 'Who is signed in: the account, or {user: null} without a valid session (never 401)',
    security: PUBLIC,
    responses: { 200: json(R.sessionResource, 'the account, or null when signed out') },
  });

  // ---------------------------------------------------------------- keys and the signing secret (session)
  path({
    method: 'post',
    path: '/api/v1/keys',
    tags: ['Keys'],
    summary: 'Create an API key (the full key is shown once)',
    security: SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: A.createKeyBody } } } },
    responses: { 201: json(R.keyCreated, 'created'), ...partAErrors(400, 401, 409) },
  });
  path({
    method: 'get',
    path: '/api/v1/keys',
    tags: ['Keys'],
    summary: "List the account's keys with status and last use",
    security: SESSION,
    responses: { 200: json(R.keyList, 'newest first'), ...partAErrors(401) },
  });
  path({
    method: 'delete',
    path: '/api/v1/keys/{keyId}',
    tags: ['Keys'],
    summary: 'Revoke a key, or delete it with permanent=true',
    security: SESSION,
    request: { params: z.object({ keyId: A.keyIdParam }), query: A.deleteKeyQuery },
    responses: {
      200: {
        description: 'revoked (the key resource) or deleted',
        content: { 'application/json': { schema: z.union([R.keyResource, R.keyDeleted]) } },
      },
      ...partAErrors(400, 401, 404),
    },
  });
  path({
    method: 'get',
    path: '/api/v1/webhooks/secret',
    tags: ['Webhooks'],
    summary: 'The signing secret of generation callbacks (created on first read)',
    security: SESSION,
    responses: { 200: json(R.webhookSecret, 'the secret (Cache-Control: no-store)'), ...partAErrors(401) },
  });
  path({
    method: 'post',
    path: '/api/v1/webhooks/secret/rotate',
    tags: ['Webhooks'],
    summary: 'Rotate the signing secret; the previous one also signs during the grace period',
    security: SESSION,
    responses: { 200: json(R.webhookSecret, 'the new secret'), ...partAErrors(401) },
  });
}
