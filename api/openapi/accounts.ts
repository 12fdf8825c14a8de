// OpenAPI entries of the account lifecycle routes (api/routes/account.ts, docs/accounts.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as AS from '../http/account-schemas';
import * as R from '../http/resources';
import { json, partBErrors, PUBLIC, SESSION } from './document';

const body = (schema: Parameters<typeof json>[0]) => ({
  body: { required: true, content: { 'application/json': { schema } } },
});

export function registerAccountPaths(registry: OpenAPIRegistry): void {
  const path = registry.registerPath.bind(registry);
  path({
    method: 'post',
    path: '/api/auth/verify',
    tags: ['Account'],
    summary:
      "Use a verification link (signup's, or a new address's): verifies the email, grants Free tokens that waited for it",
    security: PUBLIC,
    request: body(AS.tokenBody),
    responses: {
      200: json(R.userResource, 'verified (or the new address is now the email)'),
      ...partBErrors(400, 409),
    },
  });
  path({
    method: 'post',
    path: '/api/auth/verify/resend',
    tags: ['Account'],
    summary: 'Mail a new verification link (5 per account per hour)',
    security: SESSION,
    responses: {
      202: json(AS.acceptedResource, 'the mail is on its way'),
      ...partBErrors(401, 409, 429),
    },
  });
  path({
    method: 'post',
    path: '/api/auth/password/forgot',
    tags: ['Account'],
    summary: 'Mail a reset link (1 h) to the account with this email, if any: 202 whatever the email',
    security: PUBLIC,
    request: body(AS.forgotBody),
    responses: { 202: json(AS.acceptedResource, 'accepted'), ...partBErrors(400, 429) },
  });
  path({
    method: 'post',
    path: '/api/auth/password/reset',
    tags: ['Account'],
    summary: 'Set a new password with a reset link; ends every session of the account',
    security: PUBLIC,
    request: body(AS.resetBody),
    responses: { 204: { description: 'password set; sign in with it' }, ...partBErrors(400, 429, 503) },
  });
  path({
    method: 'post',
    path: '/api/auth/password/change',
    tags: ['Account'],
    summary: "Change the password (the current one required); ends the account's other sessions",
    security: SESSION,
    request: body(AS.changePasswordBody),
    responses: { 204: { description: 'changed' }, ...partBErrors(400, 401, 403, 503) },
  });
  path({
    method: 'post',
    path: '/api/auth/email/change',
    tags: ['Account'],
    summary: 'Change the email: the new address gets a link that makes the change, the current one is told',
    security: SESSION,
    request: body(AS.changeEmailBody),
    responses: { 202: json(AS.acceptedResource, 'the link is on its way'), ...partBErrors(400, 401, 403, 409) },
  });
  path({
    method: 'get',
    path: '/api/auth/account/export',
    tags: ['Account'],
    summary: 'Everything held about the account, as one JSON document with links to its files',
    security: SESSION,
    responses: { 200: json(AS.accountExport, 'the export (Content-Disposition: attachment)'), ...partBErrors(401) },
  });
  path({
    method: 'delete',
    path: '/api/auth/account',
    tags: ['Account'],
    summary:
      'Delete the account (password required): signed out at once; the workflow account-deletion-<user> does the rest',
    security: SESSION,
    request: body(AS.deleteAccountBody),
    responses: { 202: json(AS.deletionResource, 'deletion under way'), ...partBErrors(400, 401, 403) },
  });
}
