import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Sql } from '../../db/client';
import { deleteSession, insertSession, sessionSeen, sessionUserByHash } from '../../db/sessions';
import type { AppDeps, AuthedUser } from '../context';
import { ApiError, unauthorized } from '../errors';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export async function createSession(
  sql: Sql,
  userId: string,
  ttlMs: number,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlMs);
  await insertSession(sql, { tokenHash: sha256(token), userId, expiresAt });
  return { token, expiresAt };
}

export async function destroySession(sql: Sql, token: string): Promise<void> {
  await deleteSession(sql, sha256(token));
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * The session cookie's attributes: HttpOnly, SameSite=Lax, Path=/, no Domain; Secure when PUBLIC_BASE_URL is https
 * (always in production), where its name also carries the `__Host-` prefix (config.sessionCookieName), so that no
 * sibling subdomain or plain-http page can set or overwrite it. docs/security.md#session-cookie.
 */
const cookieOptions = (deps: AppDeps) =>
  ({ httpOnly: true, sameSite: 'lax', secure: deps.config.https, path: '/' }) as const;

export function setSessionCookie(deps: AppDeps, res: Response, token: string, expiresAt: Date): void {
  res.cookie(deps.config.sessionCookieName, token, { ...cookieOptions(deps), expires: expiresAt });
}

export function clearSessionCookie(deps: AppDeps, res: Response): void {
  res.clearCookie(deps.config.sessionCookieName, cookieOptions(deps));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What every refused cross-site request answers (403; Part A's envelope on /api/v1, `{error}` on Part B). */
export const CROSS_SITE_REFUSED = 'Cross-site request refused';

/**
 * A browser request that changes something on the strength of the session cookie must come from the app's own
 * pages (docs/security.md#cross-site-requests). The cookie is SameSite=Lax, which keeps it off cross-site POSTs, but
 * not off those of another origin of the same site (another port on localhost, a sibling subdomain): a form there
 * could log the user out or rotate their webhook secret. So a state-changing request is refused (403) when
 * `Sec-Fetch-Site` is `cross-site` or `same-site`, or when it carries an `Origin` other than PUBLIC_BASE_URL's.
 * Browsers send Sec-Fetch-Site on every request and Origin on every POST, PUT, PATCH and DELETE; a client that
 * sends neither is not a browser another page can drive. Safe methods (GET, HEAD, OPTIONS) change nothing and pass.
 */
export function refuseCrossSite(deps: Pick<AppDeps, 'config'>, req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  if (
    site === 'cross-site' ||
    site === 'same-site' ||
    (origin !== undefined && origin !== new URL(deps.config.publicBaseUrl).origin)
  )
    throw new ApiError(403, 'forbidden', CROSS_SITE_REFUSED);
}

/** refuseCrossSite as a middleware, for the session routes that need no session yet (signup, login, logout). */
export const sameSiteOnly =
  (deps: Pick<AppDeps, 'config'>): RequestHandler =>
  (req, _res, next) => {
    refuseCrossSite(deps, req);
    next();
  };

/**
 * Loads the user behind the session cookie, or answers 401; a state-changing request from another origin is
 * refused first (refuseCrossSite). Expired sessions are treated as absent. Part B's app
 * routes (chat, payments, storefront) use `requireAppSession`, whose 401 says exactly `{error: "Unauthorized"}`
 * as the spec's chat errors do.
 */
export function requireSession(deps: AppDeps, opts: { message?: string } = {}): RequestHandler {
  return async (req, _res, next) => {
    refuseCrossSite(deps, req);
    req.user = await sessionUser(deps, req, opts.message);
    next();
  };
}

/**
 * The user behind the request's session cookie, or a 401 `unauthorized` (with `message` when given). Expired
 * sessions are treated as absent.
 */
export async function sessionUser(deps: AppDeps, req: Request, message?: string): Promise<AuthedUser> {
  const token = readCookie(req, deps.config.sessionCookieName);
  if (!token) throw unauthorized(message ?? 'Sign in first: this route needs a session');
  const row = await sessionUserByHash(deps.sql, sha256(token));
  if (!row) throw unauthorized(message ?? 'Session expired or invalid: sign in again');
  // Recording activity at most once a minute keeps a write off most requests.
  if (Date.now() - row.lastSeenAt.getTime() > 60_000) {
    await sessionSeen(deps.sql, sha256(token));
  }
  return { id: row.id, email: row.email, plan: row.plan, createdAt: row.createdAt };
}

/** The session guard of Part B's app routes: 401 `{error: "Unauthorized"}` without a valid session. */
export const requireAppSession = (deps: AppDeps): RequestHandler => requireSession(deps, { message: 'Unauthorized' });
