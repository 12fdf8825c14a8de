// Killing the worker in the middle of a generation and starting another finishes the generation exactly once:
// one debit, one mockup, one completion callback. The first worker is a real `worker/main.ts` process killed with
// SIGKILL while its render step is fetching the design (no graceful shutdown, nothing flushed); the workflow task
// it held times out and the second worker runs the steps again.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { tokenBalance } from '../../db/ledger';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { killNow, spawnWorkerProcess, startStack, type Stack } from '../helpers/stack';
import { sleep, waitUpTo } from '../helpers/wait';

describe('generation survives a worker crash', () => {
  let stack: Stack;
  let origin: Server;
  let receiver: Server;
  let originUrl: string;
  let receiverUrl: string;
  let designRequests = 0;
  let releaseFirst: () => void = () => {};
  const callbacks: { headers: Record<string, unknown>; body: any }[] = [];
  let child: ChildProcess | undefined;

  before(async () => {
    stack = await startStack('crash', { worker: false, env: { ALLOW_PRIVATE_URLS: 'true' } });
    const design = await sharp({
      create: { width: 800, height: 800, channels: 4, background: { r: 20, g: 90, b: 200, alpha: 1 } },
    })
      .png()
      .toBuffer();
    // The design host holds the first request open until the test has stopped the worker, so the render
    // activity is provably in flight when the worker goes away; later requests are answered at once.
    origin = createServer((req, res) => {
      designRequests++;
      if (designRequests === 1) {
        releaseFirst = () => {
          if (!res.headersSent && !res.destroyed) res.writeHead(200, { 'content-type': 'image/png' }).end(design);
        };
        return;
      }
      res.writeHead(200, { 'content-type': 'image/png' }).end(design);
    });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        callbacks.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200).end('ok');
      });
    });
    await Promise.all([origin, receiver].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    releaseFirst();
    origin?.closeAllConnections();
    origin?.close();
    receiver?.close();
    await stack?.stop();
  });

  it('one debit, one mockup, one completed callback after the worker is killed mid-render and another takes over', async function () {
    this.timeout(180_000);
    // the first worker: the real worker process on this stack's task queue, database, storage and Temporal server
    child = spawnWorkerProcess(stack);
    const acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: acct.key });
    const garment = list.body.garments[0];
    const before = await tokenBalance(stack.sql, acct.userId);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      headers: { prefer: 'respond-async' },
      json: {
        designUrl: `${originUrl}/design.png`,
        garmentId: garment.id,
        garmentImageUrl: garment.colors[0].imageUrl,
        webhookUrl: receiverUrl,
      },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.id;

    // Wait until the render step is fetching the design (the worker process has bundled its workflows, polled,
    // begun the generation), then kill it.
    await waitUpTo(() => designRequests > 0, { ms: 60_000, every: 50 });
    assert.equal(designRequests, 1, 'the render step started in the worker process');
    assert.equal((await inspect.generationState(id))?.status, 'processing');
    await killNow(child);
    releaseFirst(); // the killed worker's download can never complete now

    await stack.startWorker();
    let g: any;
    await waitUpTo(
      async () => {
        g = (await http(stack.baseUrl, 'GET', `/api/v1/generations/${id}`, { key: acct.key })).body;
        return g.status === 'completed' || g.status === 'failed';
      },
      { ms: 180_000, every: 200 },
    );
    assert.equal(g.status, 'completed', JSON.stringify(g));
    assert.ok(designRequests >= 2, 'the render ran again on the new worker');

    assert.deepEqual(await inspect.debitAmounts(id), [1], 'exactly one debit');
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    assert.deepEqual(await inspect.refundAmounts(id), []);
    const mockup = await fetch(g.mockupUrl);
    assert.equal(mockup.status, 200);

    await waitUpTo(() => callbacks.length > 0, { ms: 10_000, every: 100 });
    await sleep(1000); // a duplicate would arrive by now
    const completed = callbacks.filter((c) => c.body.data?.id === id);
    assert.equal(completed.length, 1, `one callback, got ${completed.length}`);
    assert.equal(completed[0]!.body.event, 'generation.completed');
    assert.equal(completed[0]!.body.data.mockupUrl, g.mockupUrl);
  });
});
