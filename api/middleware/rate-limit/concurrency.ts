// Concurrency limiter: holds one slot per request from here until the response is over, and refuses at once
// (never queues) when the key has no slot free. "Over" is the response's 'close' event, which Node emits after
// the last byte is handed to the socket, when the client disconnects early, and after the error handler has
// answered a thrown error, so every way a request can end gives its slot back.
import type { Request, RequestHandler, Response } from 'express';
import type { Lease, SlotPool } from './memory';

export interface ConcurrencyOptions {
  pool: SlotPool;
  limit: number;
  key: (req: Request) => string;
  /** The error to answer with when no slot is free (thrown into the error handler). */
  refuse: (req: Request, res: Response) => Error | Promise<Error>;
}

export function concurrencyLimiter(opts: ConcurrencyOptions): RequestHandler {
  return async (req, res, next) => {
    let lease: Lease | null = null;
    let over = false;
    // Listen before acquiring: a client that disconnects while we wait must not leave a slot behind.
    res.once('close', () => {
      over = true;
      lease?.release();
    });
    lease = await opts.pool.acquire(opts.key(req), opts.limit);
    // `res.closed` covers a client that was gone before this middleware ran ('close' will not fire again). The
    // slot is taken and handed straight back rather than skipped, since admit() may already hold it for us.
    if (over || res.closed) {
      lease?.release();
      return;
    }
    if (!lease) throw await opts.refuse(req, res);
    next();
  };
}
