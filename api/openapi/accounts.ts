// OpenAPI entries of the account lifecycle routes (api/routes/account.ts, docs/accounts.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as AS from '../http/account-schemas';
import * as R from '../http/resources';
import { json, partBErrors, PUBLIC, SESSION } from './common';

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
    summary:
      'Set a new password with a reset link; ends every session, cancels the other outstanding links; `revokeKeys` also revokes every API key and replaces the webhook secret',
    security: PUBLIC,
    request: body(AS.resetBody),
    responses: { 204: { description: 'password set; sign in with it' }, ...partBErrors(400, 429, 503) },
  });
  path({
    method: 'post',
    path: '/api/auth/password/change',
    tags: ['Account'],
    summary:
      "Change the password (the current one required; 10 failed attempts per account and per IP per hour); ends the account's other sessions and cancels its outstanding links",
    security: SESSION,
    request: body(AS.changePasswordBody),
    responses: { 204: { description: 'changed' }, ...partBErrors(400, 401, 403, 429, 503) },
  });
  path({
    method: 'post',
    path: '/api/auth/email/change',
    tags: ['Account'],
    summary:
      'Change the email (5 per account and per IP per hour): the new address gets a link that makes the change, the current one a notice with "This wasn\'t me"; the same 202 when the address has an account (its owner is mailed)',
    security: SESSION,
    request: body(AS.changeEmailBody),
    responses: { 202: json(AS.acceptedResource, 'the link is on its way'), ...partBErrors(400, 401, 403, 429) },
  });
  path({
    method: 'get',
    path: '/api/auth/account/export',
    tags: ['Account'],
    summary: 'Everything held about the account, as one JSON document with links to its files (10 per hour)',
    security: SESSION,
    responses: {
      200: json(AS.accountExport, 'the export (Content-Disposition: attachment)'),
      ...partBErrors(401, 429),
    },
  });
  path({
    method: 'delete',
    path: '/api/auth/account',
    tags: ['Account'],
    summary:
      'Delete the account (password required): signed out at once; the workflow account-deletion-<user> does the rest',
    security: SESSION,
    request: body(AS.deleteAccountBody),
    responses: { 202: json(AS.deletionResource, 'deletion under way'), ...partBErrors(400, 401, 403, 429) },
  });
  path({
    method: 'post',
    path: '/api/auth/email/not-me',
    tags: ['Account'],
    summary:
      '"This wasn\'t me" (the link in the notice of a change of email, 7 days): stops the change or restores the old address, signs everyone out, requires a password reset',
    security: PUBLIC,
    request: body(AS.tokenBody),
    responses: { 200: json(AS.notMeResource, 'done; a reset link is on its way'), ...partBErrors(400, 403, 409) },
  });
  path({
    method: 'post',
    path: '/api/auth/sessions/revoke-all',
    tags: ['Account'],
    summary: 'Sign out every other session of the account (this one stays)',
    security: SESSION,
    responses: { 200: json(AS.revokeAllResource, 'signed out'), ...partBErrors(401, 403) },
  });
}
