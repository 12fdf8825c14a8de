import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { apiKeyByHash, touchApiKey } from '../../db/api-keys';
import { tokenBalance } from '../../db/ledger';
import type { AppDeps } from '../context';
import { badRequest, unauthorized } from '../errors';
import { sessionMode, type KeyMode } from '../http/mode';
import { readCookie, refuseCrossSite, sessionUser } from './sessions';

export const hashKey = (key: string) => createHash('sha256').update(key).digest();

/**
 * `<prefix>_live_<64 hex>`, or `<prefix>_test_<64 hex>` for a test-mode key: 256 bits from the CSPRNG, so a fast
 * hash is enough to store it (no salt needed).
 */
export function generateKey(prefix: string, mode: KeyMode = 'live'): string {
  return `${prefix}_${mode}_${randomBytes(32).toString('hex')}`;
}

export function keyPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}_(live|test)_[0-9a-f]{64}$`);
}

export type KeyStatus = 'active' | 'revoked' | 'expired';

export function keyStatus(k: { revokedAt: Date | null; expiresAt: Date | null }, now = new Date()): KeyStatus {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && k.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/**
 * Part A authentication: `Authorization: Bearer <key>`. The lookup is by SHA-256 of the key (an indexed equality
 * on a hash reveals nothing useful through timing), and the stored hash is compared again in constant time.
 * Sets X-Tokens-Remaining for every keyed response; routes that spend tokens overwrite it with the new balance.
 */
export function requireApiKey(deps: AppDeps): RequestHandler {
  const pattern = keyPattern(deps.config.apiKeyPrefix);
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <API_KEY>');
    const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (!m) throw unauthorized('Malformed Authorization header: expected Bearer <API_KEY>');
    const key = m[1]!;
    if (!pattern.test(key)) throw unauthorized('Invalid API key');
    const hash = hashKey(key);
    // the key, its account and the account's balance in one round trip
    const row = await apiKeyByHash(deps.sql, hash);
    if (!row || !timingSafeEqual(row.keyHash, hash)) throw unauthorized('Invalid API key');
    const status = keyStatus(row);
    if (status === 'revoked') throw unauthorized('API key has been revoked', { reason: 'API key has been revoked' });
    if (status === 'expired') throw unauthorized('API key has expired', { reason: 'API key has expired' });
    req.user = { id: row.userId, email: row.email, plan: row.plan, createdAt: row.createdAt };
    req.apiKeyId = row.id;
    // The key decides the mode; a mode header that says otherwise is a mistake worth reporting.
    const asked = sessionMode(req);
    if (asked !== undefined && asked !== row.mode)
      throw badRequest(`X-Mockup-Mode: ${asked} does not match this ${row.mode} key (the key decides the mode)`, {
        header: 'X-Mockup-Mode',
      });
    req.livemode = row.mode === 'live';
    // lastUsedAt is advisory: written at most once a minute per key, off the request's path, so it never costs the
    // request a round trip.
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000)
      touchApiKey(deps.sql, row.id).catch((err: unknown) =>
        (req.log ?? deps.log).warn("could not record the key's last use", { err }),
      );
    res.setHeader('X-Tokens-Remaining', String(row.balance));
    next();
  };
}

/**
 * Part A authentication for the routes the dashboard uses: `Authorization: Bearer <key>` as for any client, or,
 * when no Authorization header is sent, the browser's session cookie (docs/api-choices.md). A request with a
 * header is judged by its key alone, so a bad key is never rescued by a cookie. Rate limits then count per key, or
 * per user for session calls (`session:<user id>`). Sets X-Tokens-Remaining like requireApiKey.
 */
export function requireKeyOrSession(deps: AppDeps): RequestHandler {
  const byKey = requireApiKey(deps);
  return async (req, res, next) => {
    if (req.get('authorization') !== undefined || !readCookie(req, deps.config.sessionCookieName))
      return byKey(req, res, next);
    refuseCrossSite(deps, req);
    // The dashboard picks the mode per request (X-Mockup-Mode, live when absent); validated before the lookup.
    const mode = sessionMode(req) ?? 'live';
    const user = await sessionUser(
      deps,
      req,
      'Session expired or invalid: sign in again, or send Authorization: Bearer <API_KEY>',
    );
    req.user = user;
    req.sessionUserId = user.id;
    req.livemode = mode === 'live';
    res.setHeader('X-Tokens-Remaining', String(await tokenBalance(deps.sql, user.id)));
    next();
  };
}
