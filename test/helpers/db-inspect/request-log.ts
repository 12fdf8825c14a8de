// The API request log.
import { ago, sql } from './sql';

/** `count` logged requests of a key, one a second back from now (request ids seeded-1...). */
export async function seedRequestLog(userId: string, keyId: string, count: number): Promise<void> {
  await sql()`
    insert into api_request_log (user_id, api_key_id, livemode, method, route, status, duration_ms, request_id, created_at)
    select ${userId}, ${keyId}, true, 'GET', '/api/v1/garments', 200, 1, 'seeded-' || n, now() - n * interval '1 second'
    from generate_series(1, ${count}::int) n`;
}

/** One logged session request (no key) made `age` ago (an interval). */
export async function insertRequestLogEntry(userId: string, requestId: string, age: string): Promise<void> {
  await sql()`
    insert into api_request_log (user_id, api_key_id, livemode, method, route, status, duration_ms, request_id, created_at)
    values (${userId}, null, true, 'GET', '/api/v1/garments', 200, 1, ${requestId}, ${ago(age)})`;
}

/** How many logged requests of a user there are, of a key or under a request id. */
export async function requestLogCount(userId: string, of: { keyId: string } | { requestId: string }) {
  const [row] = await sql()<{ n: number }[]>`select count(*)::int as n from api_request_log where user_id = ${userId}
    and ${'keyId' in of ? sql()`api_key_id = ${of.keyId}` : sql()`request_id = ${of.requestId}`}`;
  return row!.n;
}
