// Storefront publishing through HTTP against the real stack and the local development shop: the whole loop (install,
// callback, webhooks registered, publish, order, paid, fulfillment), publishing design-chat mockups with their costs
// and margin, `npm run shop:order` after the dev shop restarted, app/uninstalled and reconnect, ownership, and a
// worker killed mid-publish.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import * as R from '../../api/http/resources';
import { randomSuffix } from '../../lib/ids';
import { printCostCents } from '../../lib/print/cost';
import { fileUrl } from '../../lib/storage';
import { DEV_SHOP_FILE } from '../../scripts/stand-ins/dev-shop-start';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { killNow, spawnWorkerProcess, storeDesign } from '../helpers/stack';
import { newShopDomain, useShopStack } from '../helpers/storefront';
import { sleep, until } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '../..');

describe('storefront: publishing to a Shopify store, orders and fulfillment', function () {
  this.timeout(120_000);
  let designUrl: string;
  let garment: any;
  let hold: { armed: boolean; reached?: () => void; release?: () => void } = { armed: false };

  // the dev shop keeps its state in a file, as under `npm start` (DATA_DIR/dev-shop-state.json)
  const devDataDir = mkdtempSync(path.join(tmpdir(), 'storefront-dev-shop-'));
  after(() => hold.release?.()); // before the stack stops: a held publish lets its worker go
  const t = useShopStack('storefront-publish', {
    shop: {
      stateFile: path.join(devDataDir, 'dev-shop-state.json'),
      onProductSet: async () => {
        if (!hold.armed) return;
        hold.armed = false;
        await new Promise<void>((release) => {
          hold.release = release;
          hold.reached?.();
        });
      },
    },
  });
  const { stack, shop, connect } = t;

  before(async () => {
    const design = await sharp({
      create: { width: 600, height: 600, channels: 4, background: { r: 20, g: 90, b: 200, alpha: 1 } },
    })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, design);
  });

  async function completedGeneration(acct: { key: string }): Promise<string> {
    if (!garment) {
      const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
      garment = list.body.garments[0];
    }
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: { designUrl, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
    return res.body.id;
  }

  it('runs the whole loop: install, callback, webhooks registered, publish, order, paid, fulfillment', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const connectionId = await connect(acct.cookie, shopDomain);

    const list = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
    assert.equal(list.status, 200);
    assert.equal(list.body.connections.length, 1);
    const c = list.body.connections[0];
    assert.deepEqual(
      { id: c.id, shopDomain: c.shopDomain, status: c.status },
      { id: connectionId, shopDomain, status: 'active' },
    );
    assert.match(c.shopName, /dev shop/);
    assert.ok(!Number.isNaN(Date.parse(c.installedAt)));
    assert.deepEqual(
      shop.subscriptions.get(shopDomain)!.map(({ topic, callbackUrl }) => ({ topic, callbackUrl })),
      ['orders/create', 'orders/paid', 'app/uninstalled'].map((topic) => ({
        topic,
        callbackUrl: `${stack.baseUrl}/api/storefront/webhooks/orders`,
      })),
    );

    const generationId = await completedGeneration(acct);
    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Blue square tee', description: 'A test print' },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.status, 'published');
    assert.match(pub.body.id, /^pub_/);
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.equal(pub.body.productId, product.id);
    assert.equal(pub.body.adminUrl, `https://${shopDomain}/admin/products/${product.id.split('/').pop()}`);
    assert.equal(product.title, 'Blue square tee');
    assert.deepEqual(product.options, [{ name: 'Size', values: garment.sizes }]);
    assert.deepEqual(
      product.variants.map((v) => [v.size, v.price]),
      garment.sizes.map((s: string) => [s, '59.99']),
    );
    assert.equal(product.media.length, 1);
    assert.match(product.media[0]!.originalSource, /^http:\/\/127\.0\.0\.1:\d+\/files\//);

    const products = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
    assert.equal(products.body.products[0].status, 'published');
    assert.equal(products.body.products[0].price, 59.99);

    const placed = await shop.placeOrder(shopDomain);
    assert.deepEqual(
      placed.deliveries.map((d) => d.status),
      [200, 200],
    );
    const order = await until('the paid order', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      return r.body.orders.find((o: any) => o.status === 'paid');
    });
    assert.equal(order.shopDomain, shopDomain);
    assert.equal(order.name, placed.order.name);
    assert.deepEqual(order.customer, { name: 'Ada Lovelace', email: 'ada@example.test' });
    assert.equal(order.total, '59.99');
    assert.equal(order.currency, 'USD');
    assert.equal(order.lineItems[0].publishedProductId, pub.body.id);

    const f = await http(stack.baseUrl, 'POST', `/api/storefront/orders/${order.id}/fulfillment`, {
      cookie: acct.cookie,
      json: { trackingNumber: '1Z999', trackingCompany: 'UPS', trackingUrl: 'https://ups.example/1Z999' },
    });
    assert.equal(f.status, 200, f.text);
    assert.equal(f.body.status, 'fulfilled');
    assert.deepEqual(placed.order.fulfillments[0]!.trackingInfo, {
      number: '1Z999',
      company: 'UPS',
      url: 'https://ups.example/1Z999',
    });
    assert.equal(placed.order.fulfillmentOrders[0]!.status, 'CLOSED');
    const again = await http(stack.baseUrl, 'POST', `/api/storefront/orders/${order.id}/fulfillment`, {
      cookie: acct.cookie,
      json: { trackingNumber: '1Z999', trackingCompany: 'UPS' },
    });
    assert.equal(again.status, 409);
  });

  it('refuses publishing a generation that is not completed (409)', async () => {
    const acct = await account(stack.baseUrl);
    const connectionId = await connect(acct.cookie, newShopDomain());
    if (!garment) await completedGeneration(acct);
    const failed = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: {
        designUrl: fileUrl(stack.config, `test-designs/missing-${randomSuffix()}.png`),
        garmentId: garment.id,
        garmentImageUrl: garment.colors[0].imageUrl,
      },
    });
    assert.equal(failed.body.status, 'failed', failed.text);
    const res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId: failed.body.id, connectionId, title: 'Tee' },
    });
    assert.deepEqual([res.status, res.body], [409, { error: 'Generation is not completed' }]);
  });

  // ------------------------------------------------------------ design-chat mockups and unit economics

  /** A completed design-chat job (local renderer) with mockups on `garmentUrls`; its id from the thread, as the dashboard reads it. */
  async function chatJob(acct: { cookie: string }, garmentUrls: string[]) {
    const saved = { g: stack.config.chat.gemini.apiKey, o: stack.config.chat.openai.apiKey };
    stack.config.chat.gemini.apiKey = undefined;
    stack.config.chat.openai.apiKey = undefined;
    let res;
    try {
      res = await http(stack.baseUrl, 'POST', '/api/chat', {
        cookie: acct.cookie,
        json: { prompt: 'A retro sunset over mountains, three colours', garmentUrls },
      });
    } finally {
      stack.config.chat.gemini.apiKey = saved.g;
      stack.config.chat.openai.apiKey = saved.o;
    }
    assert.equal(res.status, 200, res.text);
    const thread = await http(stack.baseUrl, 'GET', `/api/chat/threads/${res.body.threadId}`, { cookie: acct.cookie });
    const message = thread.body.messages.find((m: any) => m.id === res.body.messageId);
    assert.match(message.jobId, /^job_/);
    return { jobId: message.jobId as string, mockups: res.body.mockups as string[] };
  }

  async function catalogueGarment(acct: { key: string }) {
    if (!garment) {
      const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
      garment = list.body.garments[0];
    }
    return garment;
  }

  const cents = (usd: number) => Math.round(usd * 100);
  /**
   * The spec's figures with the garment's basePrice as the blank, the print's cost (`print`, cents: the spec's flat
   * 3000 without a print file), and the margin at `price`, worked out here.
   */
  const expected = (blank: number, price: number, print = 3000) => ({
    price,
    costs: { print: print / 100, blank, fulfillment: 5, total: (print + cents(blank) + 500) / 100 },
    margin: (cents(price) - print - cents(blank) - 500) / 100,
  });
  /**
   * What the print of a mockup must cost (issue 36): the formula of lib/print/cost.ts on the ink its print file
   * (default size, through its own route) measured.
   */
  async function printCents(
    acct: { key: string; cookie: string },
    src: { generationId: string } | { jobId: string; index: number },
  ) {
    const res =
      'generationId' in src
        ? await http(stack.baseUrl, 'GET', `/api/v1/generations/${src.generationId}/print-file`, { key: acct.key })
        : await http(stack.baseUrl, 'GET', `/api/chat/jobs/${src.jobId}/print-file?mockupIndex=${src.index}`, {
            cookie: acct.cookie,
          });
    assert.equal(res.status, 200, res.text);
    const { inkedAreaIn2, underbase } = res.body.preflight;
    assert.ok(inkedAreaIn2 > 0, `ink measured: ${inkedAreaIn2}`);
    return printCostCents(inkedAreaIn2, underbase);
  }
  const economics = (b: any) => ({ price: b.price, costs: b.costs, margin: b.margin });

  it("publishes a design-chat mockup: that mockup is the product's media; source, costs and margin in the answer and the list", async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const connectionId = await connect(acct.cookie, shopDomain);
    const g = await catalogueGarment(acct);
    assert.ok(g.basePrice > 0 && g.basePrice !== 15, `a garment whose basePrice shows: ${g.basePrice}`);
    const job = await chatJob(acct, [g.colors[0].imageUrl]);
    assert.equal(job.mockups.length, 2, 'one blank: a full-front and a left-chest mockup');

    // the estimate before publishing: the garment's sizes, its basePrice as the blank, the margin at a price
    let est = await http(stack.baseUrl, 'GET', `/api/storefront/costs?chatJobId=${job.jobId}&mockupIndex=1`, {
      cookie: acct.cookie,
    });
    assert.equal(est.status, 200, est.text);
    assert.deepEqual(
      {
        source: est.body.source,
        generationId: est.body.generationId,
        chatJobId: est.body.chatJobId,
        mockupIndex: est.body.mockupIndex,
        imageUrl: est.body.imageUrl,
        garmentId: est.body.garmentId,
        garmentName: est.body.garmentName,
        sizes: est.body.sizes,
        suggestedPrice: est.body.suggestedPrice,
      },
      {
        source: 'chat',
        generationId: null,
        chatJobId: job.jobId,
        mockupIndex: 1,
        imageUrl: job.mockups[1],
        garmentId: g.id,
        garmentName: g.name,
        sizes: g.sizes,
        suggestedPrice: 59.99,
      },
    );
    // the print is costed from its print file's ink: the left-chest print (mockup 1) is smaller than the full front
    const leftChest = await printCents(acct, { jobId: job.jobId, index: 1 });
    const fullFront = await printCents(acct, { jobId: job.jobId, index: 0 });
    assert.ok(leftChest < fullFront, `left chest ${leftChest} < full front ${fullFront} cents`);
    assert.deepEqual(economics(est.body), expected(g.basePrice, 59.99, leftChest));
    est = await http(stack.baseUrl, 'GET', `/api/storefront/costs?chatJobId=${job.jobId}&mockupIndex=0&price=45.5`, {
      cookie: acct.cookie,
    });
    assert.deepEqual(economics(est.body), expected(g.basePrice, 45.5, fullFront));
    assert.equal(est.body.imageUrl, job.mockups[0]);

    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { chatJobId: job.jobId, mockupIndex: 1, connectionId, title: 'Sunset tee', price: 64.99 },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.status, 'published');
    assert.deepEqual(economics(pub.body), expected(g.basePrice, 64.99, leftChest));
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.equal(pub.body.productId, product.id);
    assert.equal(product.title, 'Sunset tee');
    assert.deepEqual(
      product.media.map((m) => m.originalSource),
      [job.mockups[1]],
      "the chosen mockup is the product's image",
    );
    assert.deepEqual(product.options, [{ name: 'Size', values: g.sizes }]);
    assert.deepEqual(
      product.variants.map((v) => v.price),
      g.sizes.map(() => '64.99'),
    );

    // a generation's product next to it: each says where it came from, both with their economics
    const generationId = await completedGeneration(acct);
    const genPub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Generated tee' },
    });
    assert.equal(genPub.status, 200, genPub.text);
    const genPrint = await printCents(acct, { generationId });
    assert.deepEqual(economics(genPub.body), expected(g.basePrice, 59.99, genPrint));

    const list = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
    assert.equal(list.status, 200);
    const fits = R.productList.safeParse(list.body);
    assert.ok(fits.success, JSON.stringify(fits.error?.issues));
    const [fromGen, fromChat] = list.body.products;
    assert.deepEqual(
      [
        fromChat.id,
        fromChat.source,
        fromChat.generationId,
        fromChat.chatJobId,
        fromChat.mockupIndex,
        fromChat.garmentId,
      ],
      [pub.body.id, 'chat', null, job.jobId, 1, g.id],
    );
    assert.deepEqual(economics(fromChat), expected(g.basePrice, 64.99, leftChest));
    assert.deepEqual(
      [fromGen.id, fromGen.source, fromGen.generationId, fromGen.chatJobId, fromGen.mockupIndex, fromGen.garmentId],
      [genPub.body.id, 'generation', generationId, null, null, g.id],
    );
    assert.deepEqual(economics(fromGen), expected(g.basePrice, 59.99, genPrint));
    const genEst = await http(stack.baseUrl, 'GET', `/api/storefront/costs?generationId=${generationId}`, {
      cookie: acct.cookie,
    });
    assert.equal(genEst.status, 200, genEst.text);
    assert.deepEqual(
      [genEst.body.source, genEst.body.generationId, genEst.body.chatJobId],
      ['generation', generationId, null],
    );
    assert.deepEqual(economics(genEst.body), expected(g.basePrice, 59.99, genPrint));
  });

  it("a chat mockup on a client's own blank (no catalogue garment): the blank is 15 USD, and sizes must be given", async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const connectionId = await connect(acct.cookie, shopDomain);
    const job = await chatJob(acct, [designUrl]); // a plain photo of ours, not a garment colour's blank
    const est = await http(stack.baseUrl, 'GET', `/api/storefront/costs?chatJobId=${job.jobId}&mockupIndex=0`, {
      cookie: acct.cookie,
    });
    assert.equal(est.status, 200, est.text);
    assert.deepEqual([est.body.garmentId, est.body.garmentName, est.body.sizes], [null, null, []]);
    assert.deepEqual(economics(est.body), {
      price: 59.99,
      costs: { print: 30, blank: 15, fulfillment: 5, total: 50 },
      margin: 9.99,
    });
    const noSizes = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { chatJobId: job.jobId, mockupIndex: 0, connectionId, title: 'Own blank tee' },
    });
    assert.deepEqual(
      [noSizes.status, noSizes.body],
      [400, { error: "sizes: the mockup's blank is not a catalogue garment; give them" }],
    );
    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { chatJobId: job.jobId, mockupIndex: 0, connectionId, title: 'Own blank tee', sizes: ['S', 'M'] },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.deepEqual(economics(pub.body), expected(15, 59.99));
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.deepEqual(
      product.media.map((m) => m.originalSource),
      [job.mockups[0]],
    );
    const list = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
    assert.deepEqual(
      [list.body.products[0].source, list.body.products[0].garmentId, list.body.products[0].sizes],
      ['chat', null, ['S', 'M']],
    );
    assert.deepEqual(economics(list.body.products[0]), expected(15, 59.99));
  });

  it('refuses a chat mockup not the user’s (404), not completed (409) or not there (404); exactly one source (400)', async () => {
    const acct = await account(stack.baseUrl);
    const other = await account(stack.baseUrl);
    const connectionId = await connect(acct.cookie, newShopDomain());
    const g = await catalogueGarment(acct);
    const foreign = await chatJob(other, [g.colors[0].imageUrl]);
    const own = await chatJob(acct, [g.colors[0].imageUrl]);
    const publish = (json: Record<string, unknown>) =>
      http(stack.baseUrl, 'POST', '/api/storefront/publish', {
        cookie: acct.cookie,
        json: { connectionId, title: 'Tee', ...json },
      });
    const costs = (query: string) =>
      http(stack.baseUrl, 'GET', `/api/storefront/costs?${query}`, { cookie: acct.cookie });
    const answer = (r: { status: number; body: any }) => [r.status, r.body.error];

    // another user's job, an unknown one: 404, as for the estimate
    assert.deepEqual(answer(await publish({ chatJobId: foreign.jobId, mockupIndex: 0 })), [404, 'Chat job not found']);
    assert.deepEqual(answer(await costs(`chatJobId=${foreign.jobId}&mockupIndex=0`)), [404, 'Chat job not found']);
    assert.deepEqual(answer(await publish({ chatJobId: 'job_1_nope', mockupIndex: 0 })), [404, 'Chat job not found']);
    // a mockup the job does not have
    const missing = 'Mockup not found: the chat job has 2 mockups (mockupIndex 0 to 1)';
    assert.deepEqual(answer(await publish({ chatJobId: own.jobId, mockupIndex: 2 })), [404, missing]);
    assert.deepEqual(answer(await costs(`chatJobId=${own.jobId}&mockupIndex=2`)), [404, missing]);

    // a job still running, and one that failed: 409
    const running = `job_${Date.now()}_${randomSuffix(8)}`;
    await inspect.insertOrphanRenderJob({ id: running, userId: acct.userId, prompt: 'A design still being drawn' });
    assert.deepEqual(answer(await publish({ chatJobId: running, mockupIndex: 0 })), [409, 'Chat job is not completed']);
    assert.deepEqual(answer(await costs(`chatJobId=${running}&mockupIndex=0`)), [409, 'Chat job is not completed']);
    await inspect.failRenderJob(running, 'generation_failed');
    assert.deepEqual(answer(await publish({ chatJobId: running, mockupIndex: 0 })), [409, 'Chat job is not completed']);

    // exactly one source
    const generationId = await completedGeneration(acct);
    const both = await publish({ generationId, chatJobId: own.jobId, mockupIndex: 0 });
    assert.deepEqual(answer(both), [
      400,
      'Invalid request body: give exactly one mockup to publish: generationId, or chatJobId with mockupIndex, not both',
    ]);
    assert.deepEqual(answer(await publish({ generationId, mockupIndex: 0 })), [400, both.body.error]);
    assert.deepEqual(answer(await publish({})), [
      400,
      'Invalid request body: give exactly one mockup to publish: generationId, or chatJobId with mockupIndex',
    ]);
    assert.deepEqual(answer(await publish({ chatJobId: own.jobId })), [
      400,
      'Invalid request body: mockupIndex: is required with chatJobId',
    ]);
    assert.deepEqual(answer(await publish({ mockupIndex: 0 })), [
      400,
      'Invalid request body: chatJobId: is required with mockupIndex',
    ]);
    for (const mockupIndex of [-1, 1.5, '0', 100])
      assert.equal((await publish({ chatJobId: own.jobId, mockupIndex })).status, 400, JSON.stringify(mockupIndex));
    assert.deepEqual(answer(await costs('')), [
      400,
      'Invalid query: give exactly one mockup to publish: generationId, or chatJobId with mockupIndex',
    ]);
    assert.equal((await costs(`generationId=${generationId}&chatJobId=${own.jobId}&mockupIndex=0`)).status, 400);
    assert.equal((await costs(`chatJobId=${own.jobId}&mockupIndex=x`)).status, 400);
    assert.equal((await costs(`generationId=${generationId}&price=0`)).status, 400);
    assert.equal((await costs(`generationId=${generationId}&price=1.234`)).status, 400);
    assert.equal((await http(stack.baseUrl, 'GET', `/api/storefront/costs?generationId=${generationId}`)).status, 401);

    assert.deepEqual(await inspect.publishedProductIds({ userId: acct.userId }), [], 'nothing refused was recorded');
    // and the user's own completed job publishes
    const ok = await publish({ chatJobId: own.jobId, mockupIndex: 0 });
    assert.equal(ok.status, 200, ok.text);
  });

  it('`npm run shop:order` places a paid order after the dev shop restarted (its state is kept in a file)', async function () {
    this.timeout(180_000);
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const connectionId = await connect(acct.cookie, shopDomain);
    const generationId = await completedGeneration(acct);
    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Restart tee' },
    });
    assert.equal(pub.status, 200, pub.text);
    const subscriptions = shop.subscriptions.get(shopDomain);

    // restart the dev shop on the same address, as `npm start` restarted would give it its state back
    await shop.stop();
    await t.startShopAgain();
    assert.deepEqual(shop.subscriptions.get(shopDomain), subscriptions, 'subscriptions survive the restart');
    writeFileSync(path.join(devDataDir, DEV_SHOP_FILE), JSON.stringify({ url: shop.url, apiSecret: t.apiSecret }));

    const child = spawn('npm', ['run', '--silent', 'shop:order', '--', connectionId], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: devDataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0, out);
    assert.match(out, /\[dev shop\] placed order #\d+ in /);
    const order = await until('the paid order', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      return r.body.orders.find((o: any) => o.status === 'paid');
    });
    assert.equal(order.shopDomain, shopDomain);
    assert.equal(order.lineItems[0].publishedProductId, pub.body.id);
    assert.equal(order.total, '59.99');
  });

  it('blocks publishing after app/uninstalled and restores it on reconnect', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const connectionId = await connect(acct.cookie, shopDomain);
    const generationId = await completedGeneration(acct);
    const un = await shop.sendWebhook(shopDomain, 'app/uninstalled', { id: 1, domain: shopDomain });
    assert.equal(un.status, 200);
    await until('the disconnect', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
      return r.body.connections[0].status === 'disconnected';
    });
    const refused = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Tee' },
    });
    assert.deepEqual([refused.status, refused.body], [409, { error: 'Store is not connected' }]);

    assert.equal(await connect(acct.cookie, shopDomain), connectionId, 'the connection is reused');
    const list = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
    assert.equal(list.body.connections.length, 1);
    assert.equal(list.body.connections[0].status, 'active');
    const ok = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Tee', price: 25, sizes: ['M', 'L'] },
    });
    assert.equal(ok.status, 200, ok.text);
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.deepEqual(
      product.variants.map((v) => [v.size, v.price]),
      [
        ['M', '25.00'],
        ['L', '25.00'],
      ],
    );
  });

  it('refuses publishing a generation that is not the user’s (404) or a missing connection (404)', async () => {
    const acct = await account(stack.baseUrl);
    const other = await account(stack.baseUrl);
    const connectionId = await connect(acct.cookie, newShopDomain());
    const foreign = await completedGeneration(other);
    let res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId: foreign, connectionId, title: 'Tee' },
    });
    assert.equal(res.status, 404);
    const own = await completedGeneration(acct);
    res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: other.cookie,
      json: { generationId: foreign, connectionId, title: 'Tee' },
    });
    assert.equal(res.status, 404, 'another user’s connection');
    res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId: own, connectionId, title: '' },
    });
    assert.equal(res.status, 400);
  });

  it('publishes one product when the worker is killed mid-publish and another takes over', async function () {
    this.timeout(180_000);
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const connectionId = await connect(acct.cookie, shopDomain);
    const generationId = await completedGeneration(acct);

    await stack.stopWorker();
    let child: ChildProcess | undefined = spawnWorkerProcess(stack, stack.env);
    try {
      const reached = new Promise<void>((r) => (hold = { armed: true, reached: r }));
      const calls = shop.productSetCalls;
      const publishing = http(stack.baseUrl, 'POST', '/api/storefront/publish', {
        cookie: acct.cookie,
        json: { generationId, connectionId, title: 'Crash tee' },
      });
      await Promise.race([reached, sleep(90_000).then(() => Promise.reject(new Error('productSet never reached')))]);
      assert.equal(shop.products.get(shopDomain)?.size, 1, 'the shop created the product');
      await killNow(child);
      child = undefined;
      hold.release?.(); // the killed worker never reads this answer

      await stack.startWorker();
      const res = await publishing;
      assert.ok([200, 202].includes(res.status), res.text);
      const id = res.body.id;
      const row = await until(
        'the published product',
        async () => {
          const r = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
          return r.body.products.find((p: any) => p.id === id && p.status === 'published');
        },
        90_000,
      );
      assert.ok(shop.productSetCalls >= calls + 2, 'productSet ran again on the new worker');
      assert.equal(shop.products.get(shopDomain)!.size, 1, 'still one product in the shop');
      assert.equal(row.productId, [...shop.products.get(shopDomain)!.values()][0]!.id);
      assert.equal((await inspect.publishedProductIds({ connectionId })).length, 1);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      if (!stack.worker) await stack.startWorker();
    }
  });
});
