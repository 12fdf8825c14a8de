// Helpers shared by the session routes (api/routes/auth.ts, api/routes/account.ts): the client IP that keys the
// limits, the 429 of a limiter, the 503 of a full password queue, and the account as the routes present it.
import type { Request } from 'express';
import { verificationState } from '../../db/account-lifecycle';
import type { Throttle } from '../../db/auth-throttle';
import { tokenBalance, tokensOwed } from '../../db/ledger';
import { PasswordWorkBusyError } from '../auth/passwords';
import type { AppDeps } from '../context';
import { ApiError } from '../errors';

export const LINK_INVALID = 'This link is invalid, already used or expired: ask for a new one';
/** A link that a password reset or change (or "This wasn't me") cancelled. */
export const LINK_CANCELLED = 'This link is no longer valid';

export const clientIp = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

export function refuseIfThrottled(t: Throttle, message: string): void {
  if (!t) return;
  throw new ApiError(
    429,
    'rate_limited',
    message,
    { retryAfter: t.retryAfterS },
    { 'Retry-After': String(t.retryAfterS) },
  );
}

/** Password work is bounded per process (api/auth/passwords.ts): a full queue is a 503 to retry, not a stall. */
export const passwordBusy = (err: unknown) =>
  err instanceof PasswordWorkBusyError
    ? new ApiError(
        503,
        'service_unavailable',
        'Too many sign-ins at once: retry in a second',
        { retryAfter: 1 },
        { 'Retry-After': '1' },
      )
    : err;

const PLAN_NAMES: Record<string, string> = { free: 'Free', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

export async function describeUser(deps: AppDeps, u: { id: string; email: string; plan: string; createdAt: Date }) {
  return {
    id: u.id,
    email: u.email,
    plan: { id: u.plan, name: PLAN_NAMES[u.plan] ?? u.plan },
    tokenBalance: await tokenBalance(deps.sql, u.id),
    tokensOwed: await tokensOwed(deps.sql, u.id),
    createdAt: u.createdAt.toISOString(),
    ...(await verificationState(deps.sql, u.id)),
  };
}
