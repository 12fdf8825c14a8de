// Idempotency-Key on Part A's POST routes that do work, as Stripe does it: the same key
// with the same request within IDEMPOTENCY_KEY_TTL (24 h) replays the first answer (status, body and its headers,
// plus `Idempotent-Replayed: true`) without new work or charge; the same key with another request is 409
// idempotency_conflict; a key whose request is still running is 409 idempotency_key_in_use. Keys are the account's.
// Mounted after authentication, the rate limits and the body parser, in front of the handler. docs/security.md.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
  type IdempotencyRef,
  type RecoveryPoint,
  type StoredAnswer,
} from '../../db/idempotency';
import type { AppDeps } from '../context';
import { ApiError, fromZod, idempotencyKeyInUse } from '../errors';
import { idempotencyKeyHeader } from '../http/schemas';

/** Headers of an answer that belong to it and are replayed; the rest (rate limits, request id) are the replay's own. */
const STORED_HEADERS = [
  'content-type',
  'location',
  'preference-applied',
  'x-tokens-remaining',
  'x-image-provider',
] as const;

const REPLAYED_HEADER = 'Idempotent-Replayed';

export interface IdempotencyOptions {
  /** What the fingerprint hashes besides the method and the route: the body as received, or what stands for it. */
  body: (req: Request, res: Response) => Buffer | undefined;
  /**
   * Answers for a request that charged under the key but stored no answer (its API process died, or it failed after
   * charging): rebuilds the answer from what it created. Without it such a key runs the request again.
   */
  recover?: (req: Request, res: Response, point: RecoveryPoint) => Promise<void>;
  /**
   * Part B's wording (POST /api/chat): the errors say what is wrong in one flat message, a different request with
   * the key is `{error: "Idempotency-Key was used with a different request"}`.
   */
  partB?: boolean;
}

export const IDEMPOTENCY_CONFLICT_PART_B = 'Idempotency-Key was used with a different request';

const isStored = (status: number) => status >= 200 && status < 300;

export function idempotent(deps: AppDeps, opts: IdempotencyOptions): RequestHandler {
  return async (req, res, next) => {
    const given = req.get('idempotency-key');
    if (given === undefined) return next();
    const parsed = idempotencyKeyHeader.safeParse(given);
    if (!parsed.success) {
      const err = fromZod(parsed.error, 'Idempotency-Key header');
      if (opts.partB) throw new ApiError(err.status, err.code, err.message);
      throw new ApiError(err.status, err.code, err.message, { ...err.details, header: 'Idempotency-Key' });
    }
    const key = parsed.data;
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.baseUrl}${String(req.route?.path ?? req.path)}\n`)
      // a test-mode request never replays a live answer (nor the reverse); live fingerprints are as before
      .update(req.livemode === false ? 'test\n' : '')
      .update(opts.body(req, res) ?? Buffer.alloc(0))
      .digest();
    const claim = await claimIdempotencyKey(deps.sql, {
      accountId: req.user!.id,
      key,
      fingerprint,
      ttlMs: deps.config.idempotency.ttlMs,
      lockMs: deps.config.idempotency.lockMs,
    });
    switch (claim.kind) {
      case 'conflict':
        if (opts.partB) throw new ApiError(409, 'idempotency_conflict', IDEMPOTENCY_CONFLICT_PART_B);
        throw new ApiError(
          409,
          'idempotency_conflict',
          'This Idempotency-Key was already used for a different request (method, path or body) within the last ' +
            `${Math.round(deps.config.idempotency.ttlMs / 3_600_000)} hours: use a new key for a new request`,
          { header: 'Idempotency-Key' },
        );
      case 'in_flight':
        throw idempotencyKeyInUse();
      case 'replay':
        replay(res, claim.answer);
        return;
      case 'acquired':
        captureAnswer(deps, req, res, claim.ref);
        req.idempotency = claim.ref;
        if (claim.recovery && opts.recover) {
          req.log.warn('idempotency key recovered', { key, recovery: claim.recovery });
          res.setHeader(REPLAYED_HEADER, 'true');
          await opts.recover(req, res, claim.recovery);
          return;
        }
        next();
    }
  };
}

function replay(res: Response, answer: StoredAnswer): void {
  for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.setHeader('Content-Length', String(answer.body.length));
  res.status(answer.status).end(answer.body);
}

/**
 * Keeps the answer of the request holding `ref` before it leaves: a 2xx answer is stored (status, body bytes and
 * STORED_HEADERS) before it is sent, so a retry that arrives once the client has it finds it; any other answer
 * frees the key (see releaseIdempotencyKey). If storing fails, the answer is sent anyway and the key's lock runs out.
 */
function captureAnswer(deps: AppDeps, req: Request, res: Response, ref: IdempotencyRef): void {
  const end = res.end;
  res.end = function (this: Response, ...args: unknown[]) {
    res.end = end;
    const send = () => (end as (...a: unknown[]) => Response).apply(res, args);
    // an answer streamed with write() before end() is not whole here: never stored
    const whole = !res.headersSent;
    const first = typeof args[0] === 'function' ? undefined : args[0];
    const encoding = typeof args[1] === 'string' ? (args[1] as BufferEncoding) : undefined;
    const body =
      first === undefined || first === null
        ? Buffer.alloc(0)
        : Buffer.isBuffer(first)
          ? first
          : typeof first === 'string'
            ? Buffer.from(first, encoding)
            : Buffer.from(first as Uint8Array);
    const settle =
      whole && isStored(res.statusCode)
        ? storeIdempotentAnswer(deps.sql, ref, { status: res.statusCode, headers: storedHeaders(res), body }).then(
            (stored) => {
              if (!stored) req.log.warn('idempotency key was taken over before the answer', { key: ref.key });
            },
          )
        : releaseIdempotencyKey(deps.sql, ref);
    settle
      .catch((err: unknown) => req.log.error('could not settle the idempotency key', { err, key: ref.key }))
      .finally(send);
    return res;
  } as Response['end'];
}

function storedHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const v = res.getHeader(name);
    if (v !== undefined) out[name] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}
