// What a client is told: X-RateLimit-* for the window closest to running out, and the 429 rate_limited error.
import { ApiError } from '../../errors';

export interface WindowState {
  /** e.g. `minute`, `hour`, `garments-minute`: names the budget in error details. */
  name: string;
  limit: number;
  remaining: number;
  resetTime: Date;
}

/**
 * The window closest to running out: fewest requests left; on a tie the one that resets later, because that is
 * the wait the client would actually face once both are used up.
 */
export function closestToRunningOut(windows: readonly WindowState[]): WindowState | undefined {
  let best: WindowState | undefined;
  for (const w of windows) {
    if (
      !best ||
      w.remaining < best.remaining ||
      (w.remaining === best.remaining && w.resetTime.getTime() > best.resetTime.getTime())
    )
      best = w;
  }
  return best;
}

export function rateLimitHeaders(w: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(w.limit),
    'X-RateLimit-Remaining': String(Math.max(0, w.remaining)),
    'X-RateLimit-Reset': String(Math.ceil(w.resetTime.getTime() / 1000)),
  };
}

/** Whole seconds until `resetTime`, at least 1: a Retry-After of 0 invites an immediate retry that fails again. */
export function secondsUntil(resetTime: Date, now = Date.now()): number {
  return Math.max(1, Math.ceil((resetTime.getTime() - now) / 1000));
}

const DESCRIBE: Record<string, string> = {
  minute: 'requests per minute',
  hour: 'requests per hour',
  concurrency: 'concurrent requests',
  'analyze-concurrency': 'concurrent analyze requests',
};

/** e.g. `60 requests per minute per API key`, `90 generate requests per minute per account`. */
function describe(scope: string, limit: number): string {
  const account = scope.startsWith('account-');
  const name = account ? scope.slice('account-'.length) : scope;
  const what = DESCRIBE[name] ?? `${name.split('-')[0]} requests per minute`;
  return `${limit} ${what} per ${account ? 'account (all its API keys together)' : 'API key'}`;
}

/**
 * 429 rate_limited in the envelope; details.retryAfter and Retry-After carry the same seconds. `reported` is the
 * window for the X-RateLimit-* headers (the refusing window, or for a concurrency refusal the closest window).
 */
export function rateLimited(opts: {
  scope: string;
  limit: number;
  retryAfter: number;
  reported?: WindowState;
}): ApiError {
  const { scope, limit, retryAfter, reported } = opts;
  return new ApiError(
    429,
    'rate_limited',
    `Rate limit exceeded: at most ${describe(scope, limit)}; retry in ${retryAfter} s`,
    { retryAfter, limit, scope },
    { ...(reported ? rateLimitHeaders(reported) : {}), 'Retry-After': String(retryAfter) },
  );
}
