// Waiting on a promise with a time limit: the one helper the API uses to wait for a workflow's result within its sync
// budget, and for an outside call (a host name's lookup, a query of the rate limiter's store) or a readiness check
// within theirs. The timer is cleared when the promise settles first, and never holds the process open; a rejection
// of the promise after the time ran out is ignored.

/** `p`'s value, or undefined when `ms` passed first; a rejection of `p` before then is thrown. */
export async function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  p.catch(() => {});
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `p`'s value, or, when `ms` passed first, an Error with `message` (or the error `message` makes). */
export async function orTimeout<T>(ms: number, p: Promise<T>, message: string | (() => Error)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(typeof message === 'string' ? new Error(message) : message()), ms);
    timer.unref();
  });
  p.catch(() => {});
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
