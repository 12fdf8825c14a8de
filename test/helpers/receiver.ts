// A local HTTP receiver for generation callbacks: records every request (headers and raw body) and answers 200.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUpTo } from './wait';

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface CallbackReceiver {
  url: string;
  requests: ReceivedCallback[];
  /** Resolves with the first request whose body mentions `text` (a generation id), waiting up to `ms`. */
  waitFor(text: string, ms?: number): Promise<ReceivedCallback>;
  /** How many requests mention `text`. */
  count(text: string): number;
  close(): Promise<void>;
}

export async function startCallbackReceiver(status = 200): Promise<CallbackReceiver> {
  const requests: ReceivedCallback[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  const mentions = (text: string) => requests.filter((r) => r.body.toString('utf8').includes(text));
  return {
    url: `http://127.0.0.1:${port}/hooks/mockups`,
    requests,
    async waitFor(text, ms = 30_000) {
      const hit = await waitUpTo(() => mentions(text)[0], { ms, every: 50 });
      if (!hit) throw new Error(`no callback mentioning ${text} within ${ms} ms`);
      return hit;
    },
    count: (text) => mentions(text).length,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
