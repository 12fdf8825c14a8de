// Part B routes against an intruder who has the password (docs/security.md#account-takeover): "This wasn't me" from
// the notice of a change of email, and signing out every other session. (Signing out API clients is the reset's
// `revokeKeys`, api/routes/account.ts.)
import { Router } from 'express';
import { endOtherSessions, undoEmailChange } from '../../db/account-safety';
import { readCookie, requireSession, sameSiteOnly } from '../auth/sessions';
import type { AppDeps } from '../context';
import { ApiError, badRequest, conflict, parse } from '../errors';
import { tokenBody } from '../http/account-schemas';
import { LINK_INVALID } from '../http/auth-helpers';
import { jsonBody } from '../middleware/body';
import { linkFor, startQueuedMails } from '../services/accounts';

export function accountSafetyRoutes(deps: AppDeps): Router {
  const r = Router();

  // The link of the notice to the old address. Needs no session (the token is the proof): it stops a pending change
  // of email or takes the old address back, signs everyone out and locks sign-in until the password is reset.
  r.post('/auth/email/not-me', sameSiteOnly(deps), jsonBody(), async (req, res) => {
    const { token } = parse(tokenBody, req.body);
    const out = await undoEmailChange(deps.sql, token, linkFor(deps));
    if (out.status === 'invalid') throw badRequest(LINK_INVALID, { field: 'token' });
    if (out.status === 'address_taken')
      throw conflict(
        'Every session is signed out and the password must be reset, but your old address now belongs to another account: contact support',
      );
    startQueuedMails(deps, req.log, out);
    req.log.warn("email change undone by 'This wasn't me'", { status: out.status });
    res.json({
      status: out.status,
      email: out.email,
      message: `${out.status === 'restored' ? `Your email is ${out.email} again` : 'The change of email is stopped'}. Everyone is signed out: choose a new password with the link on its way to ${out.email}.`,
    });
  });

  // Signs out every other session of the account (this one stays).
  r.post('/auth/sessions/revoke-all', requireSession(deps), async (req, res) => {
    if (!req.user) throw new ApiError(500, 'internal_error', 'session user missing');
    const ended = await endOtherSessions(deps.sql, req.user.id, readCookie(req, deps.config.sessionCookieName));
    req.log.info('other sessions signed out', { userId: req.user.id, sessionsEnded: ended });
    res.json({ sessionsEnded: ended });
  });

  return r;
}
