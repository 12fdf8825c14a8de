// Waiting in tests: one sleep and one poll-until-true for every test file (the app's own time limits are lib/wait.ts).

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface UntilOptions {
  /** how long to keep asking before failing (default 30 s) */
  ms?: number;
  /** pause between two asks (default 100 ms) */
  every?: number;
}

type Falsy = undefined | null | false;

/**
 * Asks `f` until it gives a truthy value and returns that value; fails with "timed out waiting for <what>" once
 * `ms` passed. A number as the third argument is `ms`. `what` may be a function, asked at the timeout: for what is
 * known only then (a process's output so far, a worker's state).
 */
export async function until<T>(
  what: string | (() => string),
  f: () => T | Falsy | Promise<T | Falsy>,
  opts: UntilOptions | number = {},
): Promise<T> {
  const v = await waitUpTo(f, opts);
  if (v) return v;
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
}

/**
 * Asks `f` as until() does, but gives up quietly: returns its last answer, falsy if `ms` passed first. For a wait
 * the test follows with its own assertion (whose message says more than a timeout would).
 */
export async function waitUpTo<T>(
  f: () => T | Falsy | Promise<T | Falsy>,
  opts: UntilOptions | number = {},
): Promise<T | Falsy> {
  const { ms = 30_000, every = 100 } = typeof opts === 'number' ? { ms: opts } : opts;
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v || Date.now() > end) return v;
    await sleep(every);
  }
}
