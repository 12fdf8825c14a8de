// Records every keyed Part A request for the account's request log (GET /api/v1/requests): after the answer is
// sent, one entry goes into an in-process buffer; the buffer is written with one multi-row insert every 500 ms or
// every 200 entries, so the request path pays for an array push, never for a query. Route patterns only: no
// bodies, query strings or headers.
import type { RequestHandler, Response } from 'express';
import { insertRequestLog, type RequestLogEntry } from '../../db/request-log';
import type { AppDeps } from '../context';

const FLUSH_MS = 500;
const FLUSH_ROWS = 200;
/** Entries kept while the database refuses them; beyond this the oldest are dropped (the log is advisory). */
const MAX_BUFFERED = 5000;

export class RequestLogRecorder {
  private buffer: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: Pick<AppDeps, 'sql' | 'log'>) {}

  add(entry: RequestLogEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > MAX_BUFFERED) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    if (this.buffer.length >= FLUSH_ROWS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what is buffered (and waits for a write in progress); never throws. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer.splice(0);
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await insertRequestLog(this.deps.sql, batch);
      } catch (err) {
        this.deps.log.warn('request log: could not write entries; kept for the next write', {
          err,
          entries: batch.length,
        });
        this.buffer.unshift(...batch);
        if (this.buffer.length > MAX_BUFFERED) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS * 4).unref();
      }
    });
    return this.writing;
  }
}

const recorders = new WeakMap<object, RequestLogRecorder>();

/** The recorder of this app's database (one per process and pool). */
export function requestLogRecorder(deps: Pick<AppDeps, 'sql' | 'log'>): RequestLogRecorder {
  let r = recorders.get(deps.sql);
  if (!r) recorders.set(deps.sql, (r = new RequestLogRecorder(deps)));
  return r;
}

/** The error code the error handler answered with (api/errors.ts sets it), if any. */
export const errorCodeOf = (res: Response): string | null =>
  typeof res.locals.errorCode === 'string' ? res.locals.errorCode : null;

/** First in the keyed Part A chain: logs the request once its answer is sent, if the caller was identified. */
export function recordRequest(deps: Pick<AppDeps, 'sql' | 'log'>): RequestHandler {
  const recorder = requestLogRecorder(deps);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const createdAt = new Date();
    // the pattern as matched now: once an error leaves the router, req.baseUrl no longer holds the mount path
    const route = `${req.baseUrl}${typeof req.route?.path === 'string' ? req.route.path : ''}` || req.path;
    res.once('finish', () => {
      if (!req.user) return; // refused before the caller was known: no account to log it for
      recorder.add({
        userId: req.user.id,
        apiKeyId: req.apiKeyId ?? null,
        livemode: req.livemode !== false,
        method: req.method,
        route,
        status: res.statusCode,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        requestId: req.id,
        errorCode: errorCodeOf(res),
        createdAt,
      });
    });
    next();
  };
}
