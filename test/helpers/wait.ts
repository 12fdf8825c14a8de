// Waiting in tests: one sleep and one poll-until-true for every test file (the app's own time limits are lib/wait.ts).

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface UntilOptions {
  /** how long to keep asking before failing (default 30 s) */
  ms?: number;
  /** pause between two asks (default 100 ms) */
  every?: number;
}

/**
 * Asks `f` until it gives a truthy value and returns that value; fails with "timed out waiting for <what>" once
 * `ms` passed. A number as the third argument is `ms`.
 */
export async function until<T>(
  what: string,
  f: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: UntilOptions | number = {},
): Promise<T> {
  const { ms = 30_000, every = 100 } = typeof opts === 'number' ? { ms: opts } : opts;
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}
