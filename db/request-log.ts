// The request log (GET /api/v1/requests, docs/test-mode.md): rows written in batches after the answers, read newest
// first with filters, purged after 30 days and beyond the 1,000 newest per key (the dashboard's session calls of an
// account count as one key).
import type { Sql } from './client';

/** How many requests are kept per key, and for how long. */
export const REQUEST_LOG_PER_KEY = 1000;
export const REQUEST_LOG_DAYS = 30;

export interface RequestLogEntry {
  userId: string;
  apiKeyId: string | null;
  livemode: boolean;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  errorCode: string | null;
  createdAt: Date;
  /** `mcp` for an MCP tool call or resource read (docs/mcp.md); `api` when absent */
  via?: RequestVia;
}

/** How a request came in: the HTTP API, or the MCP endpoint. */
export type RequestVia = 'api' | 'mcp';

export interface RequestLogRow {
  id: string;
  createdAt: Date;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  errorCode: string | null;
  apiKeyId: string | null;
  livemode: boolean;
  via: RequestVia;
}

/** One multi-row insert for a batch of entries. */
export async function insertRequestLog(sql: Sql, entries: RequestLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await sql`insert into api_request_log ${sql(
    entries.map((e) => ({
      user_id: e.userId,
      api_key_id: e.apiKeyId,
      livemode: e.livemode,
      method: e.method,
      route: e.route,
      status: e.status,
      duration_ms: e.durationMs,
      request_id: e.requestId,
      error_code: e.errorCode,
      created_at: e.createdAt,
      via: e.via ?? 'api',
    })),
  )}`;
}

export interface RequestLogFilter {
  livemode: boolean;
  /** a key id, or 'session' for the dashboard's calls */
  keyId?: string;
  /** 2, 3, 4 or 5 for 2xx … 5xx */
  statusClass?: number;
  route?: string;
  method?: string;
  after?: { c: string; i: string };
  limit: number;
}

/**
 * The account's requests of one mode, newest first, within the last 30 days and the 1,000 newest of each key (so a
 * read never shows more than is kept, whenever the sweep last ran).
 */
export function listRequestLog(sql: Sql, userId: string, f: RequestLogFilter) {
  const key =
    f.keyId === undefined
      ? sql``
      : f.keyId === 'session'
        ? sql`and api_key_id is null`
        : sql`and api_key_id = ${f.keyId}`;
  return sql<RequestLogRow[]>`
    select id::text, created_at as "createdAt", method, route, status, duration_ms as "durationMs",
           request_id as "requestId", error_code as "errorCode", api_key_id as "apiKeyId", livemode, via
    from (
      select *, row_number() over (partition by api_key_id order by created_at desc, id desc) as rank
      from api_request_log
      where user_id = ${userId} and livemode = ${f.livemode}
        and created_at > now() - make_interval(days => ${REQUEST_LOG_DAYS}) ${key}
    ) kept
    where rank <= ${REQUEST_LOG_PER_KEY}
      ${f.statusClass === undefined ? sql`` : sql`and status / 100 = ${f.statusClass}`}
      ${f.route === undefined ? sql`` : sql`and route = ${f.route}`}
      ${f.method === undefined ? sql`` : sql`and method = ${f.method}`}
      ${f.after ? sql`and (created_at, id) < (${f.after.c}::timestamptz, ${f.after.i}::bigint)` : sql``}
    order by created_at desc, id desc
    limit ${f.limit}`;
}

/** Deletes requests older than 30 days and those beyond the 1,000 newest of each key; returns how many. */
export async function purgeRequestLog(sql: Sql): Promise<number> {
  const old = await sql`
    delete from api_request_log where created_at < now() - make_interval(days => ${REQUEST_LOG_DAYS})`;
  const extra = await sql`
    delete from api_request_log where id in (
      select id from (
        select id, row_number() over (partition by user_id, api_key_id order by created_at desc, id desc) as rank
        from api_request_log
      ) ranked where rank > ${REQUEST_LOG_PER_KEY})`;
  return old.count + extra.count;
}
