// Part B account routes: signup, login, logout, me, session. The spec only says "session"; these routes are ours.
import { Router } from 'express';
import { userId } from '../../lib/ids';
import { accountForLogin } from '../../db/accounts';
import { signUp } from '../../db/account-lifecycle';
import { forgotLink, linkFor, startQueuedMails } from '../services/accounts';
import { burnPasswordCheck, hashPassword, passwordWeakness, verifyPassword } from '../auth/passwords';
import { countLoginAttempt, countSignup, forgiveLoginAttempt } from '../../db/auth-throttle';
import {
  clearSessionCookie,
  createSession,
  destroySession,
  readCookie,
  requireSession,
  sameSiteOnly,
  sessionUser,
  setSessionCookie,
} from '../auth/sessions';
import type { AppDeps } from '../context';
import { ApiError, badRequest, conflict, parse, unauthorized } from '../errors';
import { credentialsBody } from '../http/app-schemas';
import { clientIp, describeUser, passwordBusy, refuseIfThrottled } from '../http/auth-helpers';
import { jsonBody } from '../middleware/body';

export const PASSWORD_RESET_REQUIRED =
  'This account is locked until its password is reset: open the link we mailed you, or ask for a new one';

export function authRoutes(deps: AppDeps): Router {
  const r = Router();
  // Signing up, in or out from another origin is refused like any other state-changing session request: a
  // same-site page must not sign the user out, nor sign them in to an account of the attacker's (login CSRF).
  const sameSite = sameSiteOnly(deps);

  r.post('/auth/signup', sameSite, jsonBody(), async (req, res) => {
    const { email, password } = parse(credentialsBody, req.body);
    refuseIfThrottled(
      await countSignup(deps.sql, { ip: clientIp(req), perIp: deps.config.auth.signupsPerIp }),
      'Too many signups from this address: try again later',
    );
    const weak = passwordWeakness(password, email);
    if (weak) throw badRequest(`Password ${weak}`, { field: 'password' });
    const passwordHash = await hashPassword(password).catch((err: unknown) => {
      throw passwordBusy(err);
    });
    // The verification mail (or, for a taken email, a note to its owner) is committed with the account.
    const created = await signUp(
      deps.sql,
      { id: userId(), email, passwordHash, verification: deps.config.mail.verification, linkFor: linkFor(deps) },
      forgotLink(deps),
    );
    startQueuedMails(deps, req.log, created);
    const user = created.user;
    if (!user) throw conflict('An account with this email already exists');
    const session = await createSession(deps.sql, user.id, deps.config.sessionTtlMs);
    setSessionCookie(deps, res, session.token, session.expiresAt);
    req.log.info('account created', { userId: user.id });
    res.status(201).json({ user: await describeUser(deps, user) });
  });

  r.post('/auth/login', sameSite, jsonBody(), async (req, res) => {
    const { email, password } = parse(credentialsBody, req.body);
    const ip = clientIp(req);
    // Counted before the password is checked, and the same answer for a right or wrong password while locked:
    // the limiter tells nothing about the password.
    refuseIfThrottled(
      await countLoginAttempt(deps.sql, {
        email,
        ip,
        perEmail: deps.config.auth.loginFailuresPerEmail,
        perIp: deps.config.auth.loginFailuresPerIp,
      }),
      'Too many failed sign-in attempts: try again later',
    );
    const user = await accountForLogin(deps.sql, email);
    // One answer and about one cost for "no such account" and "wrong password": nothing tells which it was.
    if (!user) {
      await burnPasswordCheck(password).catch((err: unknown) => {
        throw passwordBusy(err);
      });
      throw unauthorized('Email or password is incorrect');
    }
    const ok = await verifyPassword(password, user.passwordHash).catch((err: unknown) => {
      throw passwordBusy(err);
    });
    if (!ok) throw unauthorized('Email or password is incorrect');
    await forgiveLoginAttempt(deps.sql, { email, ip });
    // "This wasn't me" locked the account: the password is taken as known to someone else (told only to a caller
    // who has it).
    if (user.passwordResetRequired) throw new ApiError(403, 'forbidden', PASSWORD_RESET_REQUIRED);
    const session = await createSession(deps.sql, user.id, deps.config.sessionTtlMs);
    setSessionCookie(deps, res, session.token, session.expiresAt);
    res.json({ user: await describeUser(deps, user) });
  });

  r.post('/auth/logout', sameSite, async (req, res) => {
    const token = readCookie(req, deps.config.sessionCookieName);
    if (token) await destroySession(deps.sql, token);
    clearSessionCookie(deps, res);
    res.status(204).end();
  });

  r.get('/auth/me', requireSession(deps), async (req, res) => {
    if (!req.user) throw new ApiError(500, 'internal_error', 'session user missing');
    res.json({ user: await describeUser(deps, req.user) });
  });

  // The dashboard's sign-in check: who is signed in, if anyone. 200 with {user: null} for a signed-out visitor (or an
  // expired or unknown session) where /auth/me answers 401, so a first visit costs no failed request (browsers log
  // every 4xx answer as a console error).
  r.get('/auth/session', async (req, res) => {
    const user = await sessionUser(deps, req).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ user: user ? await describeUser(deps, user) : null });
  });

  return r;
}
