// GET /api/v1/requests (key or session): the account's request log, newest first, filtered and paged
// (docs/test-mode.md). Entries are written after the answers in batches (api/middleware/request-log.ts).
import { Router } from 'express';
import { listRequestLog, type RequestLogRow } from '../../db/request-log';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { requestLogQuery } from '../http/logs';
import { isLive } from '../http/mode';
import { partA } from '../middleware/part-a';
import { requestLogRecorder } from '../middleware/request-log';
import { createdAtAndId, cursorPage, DEFAULT_PAGE_LIMIT, type CursorCodec } from '../pagination';

/** Newest first by time, then id, as createdAtAndId; the id is digits only (it is read back as a bigint). */
const requestLogPosition: CursorCodec<RequestLogRow, { c: string; i: string }> = {
  read: (v) => {
    const at = createdAtAndId.read(v);
    return at && /^\d{1,19}$/.test(at.i) ? at : undefined;
  },
  of: createdAtAndId.of,
};

export function requestLogRoutes(deps: AppDeps): Router {
  const r = Router();

  r.get('/requests', ...partA(deps), async (req, res) => {
    const q = parse(requestLogQuery, req.query, 'query');
    const livemode = isLive(req);
    // the cursor is bound to the mode and the filters: it cannot be replayed with others
    const scope = `requests:${livemode ? 'live' : 'test'}:${q.keyId ?? ''}:${q.status ?? ''}:${q.route ?? ''}:${q.method ?? ''}`;
    const { page, pagination } = await cursorPage(
      {
        secret: deps.config.appSecret,
        scope,
        codec: requestLogPosition,
        invalidHint: ', with the same filters',
      },
      { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE_LIMIT },
      async (after, limit) => {
        // this process's entries not yet written are written first, so a client sees its own requests at once
        await requestLogRecorder(deps).flush();
        return listRequestLog(deps.sql, req.user!.id, {
          livemode,
          ...(q.keyId !== undefined ? { keyId: q.keyId } : {}),
          ...(q.status !== undefined ? { statusClass: Number(q.status[0]) } : {}),
          ...(q.route !== undefined ? { route: q.route } : {}),
          ...(q.method !== undefined ? { method: q.method } : {}),
          ...(after ? { after } : {}),
          limit,
        });
      },
    );
    res.json({
      requests: page.map((e) => ({
        id: `req_${e.id}`,
        createdAt: e.createdAt.toISOString(),
        method: e.method,
        route: e.route,
        status: e.status,
        durationMs: e.durationMs,
        requestId: e.requestId,
        errorCode: e.errorCode,
        keyId: e.apiKeyId,
        livemode: e.livemode,
        via: e.via,
      })),
      pagination,
    });
  });

  return r;
}
