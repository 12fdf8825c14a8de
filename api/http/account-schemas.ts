// Request and response schemas of the account lifecycle routes (docs/accounts.md): parsed by api/routes/account.ts
// and the source of their OpenAPI entries (api/openapi/accounts.ts).
import { z } from 'zod';

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'must be a valid email address' }));

/** The one-time token of a link (base64url of 32 bytes). */
const oneTimeToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{20,100}$/, 'must be the token from the link')
  .meta({ description: 'the `token` of the link in the mail' });

const password = z.string().min(1, 'is required').max(200, 'must be at most 200 characters');

export const tokenBody = z.strictObject({ token: oneTimeToken }).meta({ id: 'OneTimeToken' });

export const forgotBody = z.strictObject({ email }).meta({ id: 'PasswordForgotRequest' });

export const resetBody = z
  .strictObject({
    token: oneTimeToken,
    password: password.meta({ description: 'the new password' }),
    revokeKeys: z.boolean().default(false).meta({
      description:
        'also sign out API clients: revoke every API key and replace the webhook signing secret at once (no grace period)',
    }),
  })
  .meta({ id: 'PasswordResetRequest' });

export const revokeAllResource = z
  .object({ sessionsEnded: z.number().int().meta({ description: 'the other sessions signed out' }) })
  .meta({ id: 'SessionsRevoked' });

export const notMeResource = z
  .object({
    status: z.enum(['cancelled', 'restored']).meta({
      description: '`cancelled`: the change of email was pending and is stopped; `restored`: the old address is back',
    }),
    email: z.string().meta({ description: "the account's email now" }),
    message: z.string(),
  })
  .meta({ id: 'EmailChangeUndone' });

export const changePasswordBody = z
  .strictObject({ currentPassword: password, newPassword: password })
  .meta({ id: 'PasswordChangeRequest' });

export const changeEmailBody = z
  .strictObject({ password: password.meta({ description: 'the current password' }), newEmail: email })
  .meta({ id: 'EmailChangeRequest' });

export const deleteAccountBody = z
  .strictObject({ password: password.meta({ description: 'the current password' }) })
  .meta({ id: 'AccountDeleteRequest' });

export const acceptedResource = z
  .object({ status: z.literal('accepted'), message: z.string() })
  .meta({ id: 'Accepted', description: 'the request was taken; what follows happens by mail' });

export const deletionResource = z
  .object({
    status: z.literal('deleting'),
    workflowId: z.string().meta({ description: 'account-deletion-<user id>' }),
  })
  .meta({ id: 'AccountDeletion' });

export const accountExport = z
  .object({
    exportedAt: z.string(),
    profile: z.record(z.string(), z.unknown()),
    apiKeys: z.array(z.record(z.string(), z.unknown())),
    uploads: z.array(z.record(z.string(), z.unknown())),
    generations: z.array(z.record(z.string(), z.unknown())),
    chatThreads: z.array(z.record(z.string(), z.unknown())),
    ledger: z.object({
      grants: z.array(z.record(z.string(), z.unknown())),
      debits: z.array(z.record(z.string(), z.unknown())),
    }),
    subscriptions: z.array(z.record(z.string(), z.unknown())),
    purchases: z.array(z.record(z.string(), z.unknown())),
    storeConnections: z.array(z.record(z.string(), z.unknown())),
    orders: z.array(z.record(z.string(), z.unknown())),
    mails: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'AccountExport', description: 'everything held about the account; files as links under /files/' });
