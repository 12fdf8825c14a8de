// The generation callback receiver of the chaos suite: verifies every request's signature with its account's secret
// (lib/webhooks/signature.ts, the recipe of docs/webhooks.md), records every attempt, and answers 500 while it is
// told to fail. URL per account: <url>/hook/<user id>.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';

export interface ReceivedAttempt {
  at: number;
  userId: string;
  deliveryId: string | null;
  event: string | null;
  generationId: string | null;
  bodySha: string;
  signature: 'valid' | string;
  /** what the receiver answered */
  answered: number;
}

export interface Receiver {
  url: string;
  /** answer 500 to everything while true */
  failing: boolean;
  attempts: ReceivedAttempt[];
  stop(): Promise<void>;
}

export async function startReceiver(secrets: Map<string, string>): Promise<Receiver> {
  const r: Receiver = { url: '', failing: false, attempts: [], stop: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const userId = /^\/hook\/([\w-]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const secret = secrets.get(userId);
      const v = secret
        ? verifyWebhookSignature({ body, header: req.headers['x-mockup-signature'] as string | undefined, secret })
        : { valid: false as const, reason: 'unknown account' };
      let parsed: { event?: string; data?: { id?: string } } = {};
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        /* recorded as is */
      }
      const answered = r.failing ? 500 : v.valid ? 200 : 400;
      r.attempts.push({
        at: Date.now(),
        userId,
        deliveryId: (req.headers['x-mockup-delivery-id'] as string | undefined) ?? null,
        event: parsed.event ?? null,
        generationId: parsed.data?.id ?? null,
        bodySha: createHash('sha256').update(body).digest('hex'),
        signature: v.valid ? 'valid' : v.reason,
        answered,
      });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.stop = () =>
    new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return r;
}
