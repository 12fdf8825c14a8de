// POST /api/chat limits (spec "Limits": 10 per minute per user and 100 per hour per project). A user is an account
// here, so both windows are keyed by the session's user id. Every authenticated request counts in both windows,
// whatever its outcome (a 400, a 402, a 429 itself): the count is taken before the body is even read. Fixed windows
// in PostgreSQL (rate_limit_hit, shared by every API instance), through the Part A limiter's StoreGuard, so a
// database outage falls back to per-process windows (or 503 with RATE_LIMIT_ON_STORE_ERROR=closed).
import type { RequestHandler } from 'express';
import type { Sql } from '../../db/client';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/log';
import { ApiError } from '../errors';
import { hitWindows } from '../../db/rate-limits';
import { toIncrement } from './rate-limit/admit';
import { rateLimitsFor } from './rate-limit';
import { MemoryWindows } from './rate-limit/memory';
import { closestToRunningOut, rateLimitHeaders, secondsUntil, type WindowState } from './rate-limit/report';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** rate_limit_hit stops counting after a window the request exceeds; with this limit it never does. */
const NO_STOP = 2_147_483_647;

export function chatRateLimit(deps: { config: Config; sql: Sql; log: Logger }): RequestHandler {
  const guard = rateLimitsFor(deps).guard;
  const local = { minute: new MemoryWindows(MINUTE), hour: new MemoryWindows(HOUR) };
  return async (req, res, next) => {
    const { perMinute, perHour } = deps.config.chat;
    const userId = req.user!.id;
    const keys = { minute: `chat-minute:${userId}`, hour: `chat-hour:${userId}` };
    const r = await guard.run('chat-increment', () =>
      hitWindows(deps.sql, [
        { key: keys.minute, windowMs: MINUTE, limit: NO_STOP },
        { key: keys.hour, windowMs: HOUR, limit: NO_STOP },
      ]),
    );
    const [minute, hour] = r.ok
      ? r.value.map(toIncrement)
      : [local.minute.increment(keys.minute), local.hour.increment(keys.hour)];
    const windows: WindowState[] = [
      {
        name: 'minute',
        limit: perMinute,
        remaining: perMinute - minute!.totalHits,
        resetTime: minute!.resetTime ?? new Date(Date.now() + MINUTE),
      },
      {
        name: 'hour',
        limit: perHour,
        remaining: perHour - hour!.totalHits,
        resetTime: hour!.resetTime ?? new Date(Date.now() + HOUR),
      },
    ];
    const reported = closestToRunningOut(windows)!;
    const exceeded = windows.filter((w) => w.remaining < 0);
    if (exceeded.length > 0) {
      // the wait that actually frees the client: until every exceeded window has reset
      const retryAfter = Math.max(...exceeded.map((w) => secondsUntil(w.resetTime)));
      throw new ApiError(
        429,
        'rate_limited',
        'Too many requests',
        { retryAfter },
        { ...rateLimitHeaders(reported), 'Retry-After': String(retryAfter) },
      );
    }
    for (const [k, v] of Object.entries(rateLimitHeaders(reported))) res.setHeader(k, v);
    next();
  };
}
