// POST /api/storefront/connect/install (and the app URL's fresh install): at most 10 a minute per user. Each call
// stores an OAuth state, so this bounds what one account can write; a person connects a store a few times at most.
// express-rate-limit with the shared PostgreSQL window store (every API instance counts together), through the Part
// A limiter's StoreGuard: a database outage falls back to per-process windows (or 503 in `closed` mode).
import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Sql } from '../../db/client';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/log';
import { rateLimitsFor } from './rate-limit';
import { PgWindowStore } from './rate-limit/pg-store';
import { ApiError } from '../errors';
import { secondsUntil } from './rate-limit/report';

export const INSTALL_PER_MINUTE = 10;
const MINUTE = 60_000;
const SCOPE = 'storefront-install-minute';

/** Counts the signed-in user's installs (req.user); a request without a user is not counted here. */
export function storefrontInstallRateLimit(deps: { config: Config; sql: Sql; log: Logger }): RequestHandler {
  const store = new PgWindowStore({
    sql: deps.sql,
    guard: rateLimitsFor(deps).guard,
    prefix: `${SCOPE}:`,
    windowMs: MINUTE,
  });
  return rateLimit({
    windowMs: MINUTE,
    limit: INSTALL_PER_MINUTE,
    store,
    legacyHeaders: false,
    standardHeaders: false,
    skip: (req) => !req.user,
    keyGenerator: (req) => req.user!.id,
    passOnStoreError: false,
    handler: (req, _res, next) => {
      const info = (req as unknown as { rateLimit?: { resetTime?: Date } }).rateLimit;
      const retryAfter = secondsUntil(info?.resetTime ?? new Date(Date.now() + MINUTE));
      next(
        new ApiError(
          429,
          'rate_limited',
          `Too many store connections started: at most ${INSTALL_PER_MINUTE} a minute; retry in ${retryAfter} s`,
          { retryAfter },
          { 'Retry-After': String(retryAfter) },
        ),
      );
    },
    logger: {
      error: (err, msg) => deps.log.error(msg ?? 'express-rate-limit error', { err }),
      warn: (err, msg) => deps.log.warn(msg ?? 'express-rate-limit warning', { err }),
    },
  });
}
