// A recording HTTP proxy between the service and the run's Stripe (its STRIPE_API_URL: the local checkout in front of
// stripe-mock): every request is kept (method, path, query, headers, form-encoded body) so tests can check what the
// service sends to Stripe. stripe-mock is stateless, so a test can also rewrite the JSON answer of chosen requests
// (the state a real Stripe account would have), or answer one request with an error itself.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The form-encoded body (Stripe's request format), e.g. `form.get('metadata[userId]')`. */
  form: URLSearchParams;
  /** Status answered to the service. */
  status?: number;
}

type Match = (r: StripeRequest) => boolean;

export interface StripeProxy {
  url: string;
  requests: StripeRequest[];
  /** Rewrites the JSON answer of every request that matches (until the proxy stops). */
  rewrite(match: Match, change: (body: any) => unknown): void;
  /** Answers the next request that matches with `status` (and headers) instead of forwarding it. */
  failNext(match: Match, status: number, headers?: Record<string, string>): void;
  stop(): Promise<void>;
}

export async function startStripeProxy(upstream: string): Promise<StripeProxy> {
  const rewrites: { match: Match; change: (body: any) => unknown }[] = [];
  const failures: { match: Match; status: number; headers: Record<string, string> }[] = [];
  const requests: StripeRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const u = new URL(req.url ?? '/', 'http://proxy');
        const r: StripeRequest = {
          method: req.method ?? 'GET',
          path: u.pathname,
          query: u.searchParams,
          headers: req.headers,
          form: new URLSearchParams(body.toString('utf8')),
        };
        requests.push(r);
        const fail = failures.findIndex((f) => f.match(r));
        if (fail >= 0) {
          const f = failures.splice(fail, 1)[0]!;
          r.status = f.status;
          res
            .writeHead(f.status, { 'content-type': 'application/json', ...f.headers })
            .end(JSON.stringify({ error: { type: 'api_error', message: 'injected by the test proxy' } }));
          return;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && !['host', 'content-length', 'connection', 'accept-encoding'].includes(k))
            headers[k] = v;
        const up = await fetch(`${upstream}${req.url}`, {
          method: r.method,
          headers,
          ...(body.length > 0 ? { body } : {}),
        });
        let text = await up.text();
        const change = rewrites.find((w) => w.match(r));
        if (change) text = JSON.stringify(change.change(JSON.parse(text)));
        r.status = up.status;
        res.writeHead(up.status, {
          'content-type': up.headers.get('content-type') ?? 'application/json',
          'request-id': up.headers.get('request-id') ?? 'req_proxy',
        });
        res.end(text);
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    rewrite: (match, change) => rewrites.push({ match, change }),
    failNext: (match, status, headers = {}) => failures.push({ match, status, headers }),
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
