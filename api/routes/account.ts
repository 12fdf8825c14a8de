// Part B account lifecycle routes (docs/accounts.md): verify email, forgot and reset password, change password and
// email, export, delete. Errors are `{error: string}`; every body is parsed with the schemas of account-schemas.ts.
import { Router } from 'express';
import {
  changePassword,
  confirmEmailToken,
  passwordHashOf,
  requestEmailChange,
  requestPasswordReset,
  resendVerification,
  resetPassword,
} from '../../db/account-lifecycle';
import {
  countAccountChange,
  countResetAttempt,
  countResetRequest,
  countVerifyResend,
  forgiveAccountChange,
  type AccountChange,
} from '../../db/account-throttle';
import { hashPassword, passwordWeakness, verifyPassword } from '../auth/passwords';
import { clearSessionCookie, readCookie, requireSession, sameSiteOnly } from '../auth/sessions';
import type { AppDeps, AuthedUser } from '../context';
import { ApiError, badRequest, conflict, parse } from '../errors';
import type { Request } from 'express';
import {
  changeEmailBody,
  changePasswordBody,
  deleteAccountBody,
  forgotBody,
  resetBody,
  tokenBody,
} from '../http/account-schemas';
import {
  clientIp,
  describeUser,
  LINK_CANCELLED,
  LINK_INVALID,
  passwordBusy,
  refuseIfThrottled,
} from '../http/auth-helpers';
import { jsonBody } from '../middleware/body';
import { exportAccount } from '../services/account-export';
import { requestAccountDeletion } from '../services/account-deletion';
import { forgotLink, linkFor, startQueuedMails } from '../services/accounts';

export const WRONG_PASSWORD = 'Current password is incorrect';
export const FORGOT_ACCEPTED = 'If an account has this email, a link to reset its password is on its way';

const TOO_MANY: Record<AccountChange, string> = {
  emailChange: 'Too many email changes: try again later',
  passwordChange: 'Too many password change attempts: try again later',
  deletion: 'Too many deletion attempts: try again later',
  export: 'Too many exports: try again later',
};

const signedIn = (user: AuthedUser | undefined): AuthedUser => {
  if (!user) throw new ApiError(500, 'internal_error', 'session user missing');
  return user;
};

export function accountRoutes(deps: AppDeps): Router {
  const r = Router();
  const sameSite = sameSiteOnly(deps);
  const session = requireSession(deps);

  /** The current password of a signed-in account, or a 400 naming the field. */
  const checkPassword = async (userId: string, password: string, field: string) => {
    const stored = await passwordHashOf(deps.sql, userId);
    const ok =
      stored !== null &&
      (await verifyPassword(password, stored).catch((err: unknown) => {
        throw passwordBusy(err);
      }));
    if (!ok) throw badRequest(WRONG_PASSWORD, { field });
  };

  /** Counts one account change for the account and the client IP (docs/security.md#limits); a 429 over either. */
  const throttle = async (change: AccountChange, userId: string, req: Request) =>
    refuseIfThrottled(
      await countAccountChange(deps.sql, change, {
        userId,
        ip: clientIp(req),
        perHour: deps.config.mail.accountChangesPerHour[change],
      }),
      TOO_MANY[change],
    );

  const newPasswordHash = async (password: string, email: string, field: string) => {
    const weak = passwordWeakness(password, email);
    if (weak) throw badRequest(`Password ${weak}`, { field });
    return hashPassword(password).catch((err: unknown) => {
      throw passwordBusy(err);
    });
  };

  // The link of a verification mail (signup, or a new address): verifies it, and grants the Free plan's tokens that
  // were waiting for it. Needs no session: the token is the proof.
  r.post('/auth/verify', sameSite, jsonBody(), async (req, res) => {
    const { token } = parse(tokenBody, req.body);
    const result = await confirmEmailToken(deps.sql, token);
    if (result.status === 'invalid') throw badRequest(LINK_INVALID, { field: 'token' });
    if (result.status === 'cancelled') throw badRequest(LINK_CANCELLED, { field: 'token' });
    if (result.status === 'email_taken') throw conflict('An account with this email already exists');
    req.log.info('email verified', { userId: result.user.id, change: result.status === 'email_changed' });
    res.json({ user: await describeUser(deps, result.user) });
  });

  r.post('/auth/verify/resend', session, async (req, res) => {
    const user = signedIn(req.user);
    refuseIfThrottled(
      await countVerifyResend(deps.sql, { userId: user.id, perHour: deps.config.mail.verifyResendsPerHour }),
      'Too many verification mails: try again later',
    );
    const sent = await resendVerification(deps.sql, user.id, linkFor(deps));
    if (!sent) throw new ApiError(401, 'unauthorized', 'Unauthorized');
    if (!sent.sent) throw conflict('Your email is already verified');
    startQueuedMails(deps, req.log, sent);
    res.status(202).json({ status: 'accepted', message: `A new verification link is on its way to ${user.email}` });
  });

  // 202 whatever the email: the answer tells nothing about which addresses have accounts.
  r.post('/auth/password/forgot', sameSite, jsonBody(), async (req, res) => {
    const { email } = parse(forgotBody, req.body);
    refuseIfThrottled(
      await countResetRequest(deps.sql, {
        email,
        ip: clientIp(req),
        perEmail: deps.config.mail.resetsPerEmail,
        perIp: deps.config.mail.resetsPerIp,
      }),
      'Too many password reset requests: try again later',
    );
    startQueuedMails(deps, req.log, await requestPasswordReset(deps.sql, email, linkFor(deps)));
    res.status(202).json({ status: 'accepted', message: FORGOT_ACCEPTED });
  });

  // Sets the new password and ends every session of the account (the caller signs in with the new password).
  r.post('/auth/password/reset', sameSite, jsonBody(), async (req, res) => {
    const { token, password, revokeKeys } = parse(resetBody, req.body);
    refuseIfThrottled(
      await countResetAttempt(deps.sql, { ip: clientIp(req), perIp: deps.config.mail.resetsPerIp }),
      'Too many password reset attempts: try again later',
    );
    // The weakness check needs the account's email, which only the token knows: checked without it first (the
    // token stays unused when the password is refused), then the reset itself.
    const hash = await newPasswordHash(password, '', 'password');
    const done = await resetPassword(deps.sql, token, hash, { forgotLink: forgotLink(deps), revokeKeys });
    if (done.status !== 'reset')
      throw badRequest(done.status === 'cancelled' ? LINK_CANCELLED : LINK_INVALID, { field: 'token' });
    startQueuedMails(deps, req.log, done);
    req.log.info('password reset', {
      userId: done.userId,
      sessionsEnded: done.sessionsEnded,
      keysRevoked: done.keysRevoked,
    });
    res.status(204).end();
  });

  // Keeps this session, ends the account's others.
  r.post('/auth/password/change', session, jsonBody(), async (req, res) => {
    const user = signedIn(req.user);
    const { currentPassword, newPassword } = parse(changePasswordBody, req.body);
    // counted before the check, a success taken back: failed current passwords add up as sign-in failures do
    await throttle('passwordChange', user.id, req);
    await checkPassword(user.id, currentPassword, 'currentPassword');
    await forgiveAccountChange(deps.sql, 'passwordChange', { userId: user.id, ip: clientIp(req) });
    const hash = await newPasswordHash(newPassword, user.email, 'newPassword');
    const token = readCookie(req, deps.config.sessionCookieName);
    startQueuedMails(deps, req.log, await changePassword(deps.sql, user.id, hash, token, forgotLink(deps)));
    res.status(204).end();
  });

  // The new address gets a link that makes the change when opened; the current one is told, with "This wasn't me".
  // The same answer when another account has the new address (its owner is mailed instead): nothing tells which.
  r.post('/auth/email/change', session, jsonBody(), async (req, res) => {
    const user = signedIn(req.user);
    const { password, newEmail } = parse(changeEmailBody, req.body);
    await throttle('emailChange', user.id, req);
    await checkPassword(user.id, password, 'password');
    const out = await requestEmailChange(deps.sql, user.id, newEmail, {
      linkFor: linkFor(deps),
      forgotLink: forgotLink(deps),
    });
    if (out.status !== 'sent') {
      if (out.status === 'same') throw badRequest('This is already your email', { field: 'newEmail' });
      throw new ApiError(401, 'unauthorized', 'Unauthorized');
    }
    startQueuedMails(deps, req.log, out);
    res.status(202).json({
      status: 'accepted',
      message: `Open the link sent to ${newEmail} to make it your email; until then it stays ${user.email}`,
    });
  });

  r.get('/auth/account/export', session, async (req, res) => {
    const user = signedIn(req.user);
    await throttle('export', user.id, req);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Disposition', `attachment; filename="account-${user.id}.json"`);
    res.json(await exportAccount(deps, user.id));
  });

  // The password again, then the account can no longer sign in; the account-deletion-<user> workflow does the rest.
  r.delete('/auth/account', session, jsonBody(), async (req, res) => {
    const user = signedIn(req.user);
    const { password } = parse(deleteAccountBody, req.body);
    await throttle('deletion', user.id, req);
    await checkPassword(user.id, password, 'password');
    const workflowId = await requestAccountDeletion(deps, user.id, req.log);
    clearSessionCookie(deps, res);
    res.status(202).json({ status: 'deleting', workflowId });
  });

  return r;
}
