// Small HTTP client for integration tests: every call goes over a real socket to the API under test.
import { randomSuffix } from '../../lib/ids';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpOptions {
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  cookie?: string;
  /** API key for `Authorization: Bearer`. */
  key?: string;
  signal?: AbortSignal;
}

export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  opts: HttpOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.json);
  }
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual', signal: opts.signal });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export const uniqueEmail = (tag = 'user') => `${tag}-${randomSuffix(8)}@example.test`;
export const GOOD_PASSWORD = 'Correct-Horse-42';

/** The `name=value` part of the session cookie, ready to send back. */
export function sessionCookie(res: HttpResult): string {
  const set = res.headers.getSetCookie().find((c) => c.includes('_session='));
  if (!set) throw new Error(`no session cookie in response ${res.status}: ${res.text}`);
  return set.split(';')[0]!;
}

export async function signup(
  baseUrl: string,
  email = uniqueEmail(),
): Promise<{ cookie: string; user: any; email: string; password: string }> {
  const res = await http(baseUrl, 'POST', '/api/auth/signup', { json: { email, password: GOOD_PASSWORD } });
  if (res.status !== 201) throw new Error(`signup failed ${res.status}: ${res.text}`);
  return { cookie: sessionCookie(res), user: res.body.user, email, password: GOOD_PASSWORD };
}

export async function createKey(
  baseUrl: string,
  cookie: string,
  body: Record<string, unknown> = { name: 'test key' },
): Promise<{ key: string; id: string }> {
  const res = await http(baseUrl, 'POST', '/api/v1/keys', { cookie, json: body });
  if (res.status !== 201) throw new Error(`key creation failed ${res.status}: ${res.text}`);
  return { key: res.body.key, id: res.body.metadata.id };
}

/** A fresh account with one API key: the usual starting point of a Part A test. */
export async function account(
  baseUrl: string,
): Promise<{ cookie: string; key: string; keyId: string; userId: string; email: string }> {
  const s = await signup(baseUrl);
  const k = await createKey(baseUrl, s.cookie);
  return { cookie: s.cookie, key: k.key, keyId: k.id, userId: s.user.id, email: s.email };
}
