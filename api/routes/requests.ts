// GET /api/v1/requests (key or session): the account's request log, newest first, filtered and paged
// (docs/test-mode.md). Entries are written after the answers in batches (api/middleware/request-log.ts).
import { Router } from 'express';
import { listRequestLog } from '../../db/request-log';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import type { AppDeps } from '../context';
import { badRequest, parse } from '../errors';
import { requestLogQuery } from '../http/logs';
import { isLive } from '../http/mode';
import { partA } from '../middleware/part-a';
import { requestLogRecorder } from '../middleware/request-log';
import { DEFAULT_PAGE_LIMIT } from '../pagination';

export function requestLogRoutes(deps: AppDeps): Router {
  const r = Router();

  r.get('/requests', ...partA(deps), async (req, res) => {
    const q = parse(requestLogQuery, req.query, 'query');
    const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
    const livemode = isLive(req);
    // the cursor is bound to the mode and the filters: it cannot be replayed with others
    const scope = `requests:${livemode ? 'live' : 'test'}:${q.keyId ?? ''}:${q.status ?? ''}:${q.route ?? ''}:${q.method ?? ''}`;
    let after: { c: string; i: string } | undefined;
    if (q.cursor !== undefined) {
      const c = decodeCursor<{ c: unknown; i: unknown }>(q.cursor, deps.config.appSecret, scope);
      if (
        !c ||
        typeof c.c !== 'string' ||
        typeof c.i !== 'string' ||
        !/^\d{1,19}$/.test(c.i) ||
        Number.isNaN(Date.parse(c.c))
      )
        throw badRequest('Invalid cursor: pass nextCursor from the previous page unchanged, with the same filters');
      after = { c: c.c, i: c.i };
    }
    // this process's entries not yet written are written first, so a client sees its own requests at once
    await requestLogRecorder(deps).flush();
    const rows = await listRequestLog(deps.sql, req.user!.id, {
      livemode,
      ...(q.keyId !== undefined ? { keyId: q.keyId } : {}),
      ...(q.status !== undefined ? { statusClass: Number(q.status[0]) } : {}),
      ...(q.route !== undefined ? { route: q.route } : {}),
      ...(q.method !== undefined ? { method: q.method } : {}),
      ...(after ? { after } : {}),
      limit: limit + 1,
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
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
      pagination: {
        hasMore,
        nextCursor:
          hasMore && last
            ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }, deps.config.appSecret, scope)
            : null,
      },
    });
  });

  return r;
}
