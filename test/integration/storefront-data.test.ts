// Shopify data for the shop's current owner only, and webhook deliveries that cannot be replayed or re-routed,
// through HTTP against the real stack and the local development shop:
// * customers/data_request exports: listed only for requests received while the user's connection to the shop was
//   active, each built from that user's own orders (a shop connected by A, disconnected, then connected by B);
// * a captured delivery re-sent with a fresh webhook id (and a fresh event id, or to another shop) does nothing; a
//   retry of the same delivery is answered 200 and not processed again; orders/create and orders/paid of one order
//   are both processed;
// * a compliance body naming another shop than X-Shopify-Shop-Domain is refused (400) and nothing is done;
// * a delivery triggered more than 48 hours ago is refused (400).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import * as R from '../../api/http/resources';
import { randomSuffix } from '../../lib/ids';
import { signBody } from '../../scripts/stand-ins/shopify-shop';
import { inboundEventsSweep } from '../../workflows';
import { account, http } from '../helpers/http';
import * as inspect from '../helpers/db-inspect';
import { unreachableTemporal, withApiOn } from '../helpers/stack';
import { newShopDomain, useShopStack } from '../helpers/storefront';

describe('storefront: Shopify data for the current owner, webhook replay and routing', function () {
  this.timeout(120_000);
  const t = useShopStack('storefront-data');
  const { stack, shop, connect, webhookProcessed: processed } = t;
  const url = () => `${stack.baseUrl}/api/storefront/webhooks/orders`;

  const started = async (webhookId: string) => {
    try {
      await stack.client.workflow.getHandle(`shopify-webhook-${webhookId}`).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };
  const stored = async (webhookId: string) => (await inspect.shopifyWebhook(webhookId)) !== undefined;

  /** Sends a signed webhook and waits for its workflow: its id. */
  async function deliver(shopDomain: string, topic: string, payload: unknown): Promise<string> {
    const sent = await shop.sendWebhook(shopDomain, topic, payload, { url: url() });
    assert.equal(sent.status, 200);
    await processed(sent.webhookId);
    return sent.webhookId;
  }

  /** A signed delivery with the headers given (raw: what a replayer controls), its answer. */
  async function post(
    body: string,
    headers: { topic: string; shop: string; webhookId?: string; eventId?: string; triggeredAt?: string },
  ) {
    return http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', {
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': headers.topic,
        'x-shopify-shop-domain': headers.shop,
        'x-shopify-webhook-id': headers.webhookId ?? randomUUID(),
        ...(headers.eventId ? { 'x-shopify-event-id': headers.eventId } : {}),
        ...(headers.triggeredAt ? { 'x-shopify-triggered-at': headers.triggeredAt } : {}),
        'x-shopify-api-version': '2026-10',
        'x-shopify-hmac-sha256': signBody(t.apiSecret, body),
      },
      body,
    });
  }

  const orderPayload = (id: number, email: string, extra: Record<string, unknown> = {}) => ({
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id}`,
    email,
    created_at: new Date().toISOString(),
    currency: 'USD',
    total_price: '25.00',
    financial_status: 'pending',
    customer: { id: 71, first_name: 'Alan', last_name: 'Turing', email },
    line_items: [{ title: 'Tee', quantity: 1, price: '25.00', product_id: 1 }],
    ...extra,
  });

  const listed = async (cookie: string, shopDomain: string) => {
    const r = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie });
    assert.equal(r.status, 200, r.text);
    assert.ok(R.dataRequestList.safeParse(r.body).success, r.text);
    return (r.body.dataRequests as any[]).filter((d) => d.shopDomain === shopDomain);
  };
  const ordersOf = async (cookie: string) =>
    (await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie })).body.orders as any[];

  it("lists a data request only to the user whose connection was active when it came, with that user's orders", async () => {
    const shopDomain = newShopDomain('data');
    const email = `alan-${randomSuffix(6)}@example.test`;
    const request = (order: number) => ({
      shop_domain: shopDomain,
      customer: { id: 71, email },
      orders_requested: [order],
    });
    const a = await account(stack.baseUrl);
    const b = await account(stack.baseUrl);

    // A connects; an order of the customer comes; a data request comes: A's export has A's order.
    const connA = await connect(a.cookie, shopDomain);
    await deliver(shopDomain, 'orders/create', orderPayload(910001, email));
    const first = await deliver(shopDomain, 'customers/data_request', request(910001));
    let forA = await listed(a.cookie, shopDomain);
    assert.deepEqual(
      forA.map((d) => [d.id, d.orders.map((o: any) => o.name)]),
      [[first, ['#910001']]],
    );

    // A disconnects: a request coming now is not A's.
    const del = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${connA}`, { cookie: a.cookie });
    assert.equal(del.status, 200, del.text);
    const whileNobody = await deliver(shopDomain, 'customers/data_request', request(910001));

    // One more arrives while nobody is connected but is processed only after B connected (Temporal was unreachable
    // from the API that stored it; the inbound sweep starts it later): received before B's connection, not B's.
    const late = await withApiOn(stack, unreachableTemporal(), async (baseUrl) => {
      const sent = await shop.sendWebhook(shopDomain, 'customers/data_request', request(910001), {
        url: `${baseUrl}/api/storefront/webhooks/orders`,
      });
      assert.equal(sent.status, 200);
      return sent.webhookId;
    });
    await inspect.backdateShopifyWebhook(late, '1 minute');

    // B connects the same shop; B's own order of the same customer comes; then a request.
    await connect(b.cookie, shopDomain);
    await stack.client.workflow.execute(inboundEventsSweep, {
      workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    await processed(late);
    await deliver(shopDomain, 'orders/create', orderPayload(910002, email));
    const second = await deliver(shopDomain, 'customers/data_request', {
      ...request(910002),
      orders_requested: [910001, 910002],
    });

    forA = await listed(a.cookie, shopDomain);
    assert.deepEqual(
      forA.map((d) => d.id),
      [first],
      'A sees the request of its active time only',
    );
    const forB = await listed(b.cookie, shopDomain);
    assert.deepEqual(
      forB.map((d) => d.id),
      [second],
      'B sees no request received before it connected',
    );
    assert.deepEqual(
      forB[0].orders.map((o: any) => o.name),
      ['#910002'],
      "B's export has B's order only, not A's of the same customer",
    );
    assert.deepEqual(forB[0].ordersRequested, ['gid://shopify/Order/910001', 'gid://shopify/Order/910002']);
    for (const id of [whileNobody, late]) {
      assert.ok(!forA.some((d) => d.id === id) && !forB.some((d) => d.id === id), `${id} is nobody's`);
    }
    // A's order is still A's (the export scoping is not a deletion)
    assert.deepEqual(
      (await ordersOf(a.cookie)).map((o) => o.name),
      ['#910001'],
    );
  });

  it('processes a captured delivery re-sent with a fresh webhook id only once; a retry is answered 200', async () => {
    const owner = await account(stack.baseUrl);
    const shopDomain = newShopDomain('data');
    await connect(owner.cookie, shopDomain);
    const email = `grace-${randomSuffix(6)}@example.test`;
    const payload = orderPayload(920001, email);

    const original = await shop.sendWebhook(shopDomain, 'orders/create', payload, { url: url() });
    assert.equal(original.status, 200);
    await processed(original.webhookId);

    // Shopify's retry of the same delivery (same webhook id and event id): 200, nothing new
    const retry = await shop.sendWebhook(shopDomain, 'orders/create', payload, {
      url: url(),
      webhookId: original.webhookId,
    });
    assert.equal(retry.eventId, original.eventId);
    assert.equal(retry.status, 200);

    // A replay of the captured bytes with a fresh webhook id and the same event id: 200, not stored, not started
    const body = JSON.stringify(payload);
    const sameEvent = await post(body, { topic: 'orders/create', shop: shopDomain, eventId: original.eventId });
    assert.equal(sameEvent.status, 200, sameEvent.text);
    // ... with fresh webhook and event ids: the same topic and bytes, still nothing
    const freshIds = await post(body, { topic: 'orders/create', shop: shopDomain, eventId: randomUUID() });
    assert.equal(freshIds.status, 200, freshIds.text);
    // ... routed to another shop (the shop header is not signed): that shop's owner gets no order
    const victim = await account(stack.baseUrl);
    const otherShop = newShopDomain('data');
    await connect(victim.cookie, otherShop);
    const rerouted = await post(body, { topic: 'orders/create', shop: otherShop, eventId: randomUUID() });
    assert.equal(rerouted.status, 200, rerouted.text);

    assert.deepEqual(
      await inspect.shopifyWebhookIds([shopDomain, otherShop], 'orders/create'),
      [original.webhookId],
      'one delivery stored',
    );

    // orders/paid of the same order: another topic and body, processed
    const paid = await deliver(shopDomain, 'orders/paid', { ...payload, financial_status: 'paid' });
    assert.ok(await stored(paid));
    const mine = await ordersOf(owner.cookie);
    assert.deepEqual(
      mine.map((o) => [o.name, o.status]),
      [['#920001', 'paid']],
    );
    assert.deepEqual(await ordersOf(victim.cookie), [], 'the re-routed replay made no order');
    // nothing started for the replays (their webhook ids were never stored)
    assert.equal((await inspect.shopifyWebhookIds([shopDomain])).length, 2, 'orders/create and orders/paid');
  });

  it('deduplicates on the event id, and on topic + body without one; repeated bodies with new events count', async () => {
    const owner = await account(stack.baseUrl);
    const shopDomain = newShopDomain('data');
    await connect(owner.cookie, shopDomain);
    const body = JSON.stringify({ shop_domain: shopDomain, customer: { id: 72 }, orders_to_redact: [930001] });

    // no X-Shopify-Event-Id: the second delivery of the same topic and body under a new webhook id does nothing
    const first = randomUUID();
    const second = randomUUID();
    assert.equal((await post(body, { topic: 'customers/redact', shop: shopDomain, webhookId: first })).status, 200);
    assert.equal((await post(body, { topic: 'customers/redact', shop: shopDomain, webhookId: second })).status, 200);
    assert.ok(await stored(first));
    assert.ok(!(await stored(second)));
    await processed(first);
    assert.ok(!(await started(second)), 'no workflow for the duplicate');

    // two events with byte-identical bodies (Shopify repeats a redaction request): both processed
    const e1 = randomUUID();
    const e2 = randomUUID();
    const w1 = randomUUID();
    const w2 = randomUUID();
    assert.equal(
      (await post(body, { topic: 'customers/redact', shop: shopDomain, webhookId: w1, eventId: e1 })).status,
      200,
    );
    assert.equal(
      (await post(body, { topic: 'customers/redact', shop: shopDomain, webhookId: w2, eventId: e2 })).status,
      200,
    );
    assert.ok((await stored(w1)) && (await stored(w2)));
    await processed(w1);
    await processed(w2);
  });

  it('refuses a compliance request whose body names another shop than its header (400), and does nothing', async () => {
    const owner = await account(stack.baseUrl);
    const shopDomain = newShopDomain('data');
    await connect(owner.cookie, shopDomain);
    const email = `kept-${randomSuffix(6)}@example.test`;
    await deliver(shopDomain, 'orders/create', orderPayload(940001, email));

    // a shop/redact captured from another shop, sent under this shop's header
    const cases: [string, unknown][] = [
      ['shop/redact', { shop_id: 1, shop_domain: newShopDomain('data') }],
      [
        'customers/redact',
        { shop_domain: newShopDomain('data'), customer: { id: 71, email }, orders_to_redact: [940001] },
      ],
      [
        'customers/data_request',
        { shop_domain: newShopDomain('data'), customer: { id: 71, email }, orders_requested: [940001] },
      ],
      ['shop/redact', { shop_id: 1 }],
      ['app/uninstalled', { id: 1, myshopify_domain: newShopDomain('data') }],
    ];
    for (const [topic, payload] of cases) {
      const webhookId = randomUUID();
      const res = await post(JSON.stringify(payload), { topic, shop: shopDomain, webhookId, eventId: randomUUID() });
      assert.equal(res.status, 400, `${topic} ${res.text}`);
      assert.match(res.body.error, /does not match X-Shopify-Shop-Domain/);
      assert.ok(!(await stored(webhookId)), `${topic}: nothing stored`);
      assert.ok(!(await started(webhookId)), `${topic}: nothing started`);
    }
    const orders = await ordersOf(owner.cookie);
    assert.deepEqual(
      orders.map((o) => [o.name, o.customer.email]),
      [['#940001', email]],
      'the order and its customer are kept',
    );
    const conns = (await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: owner.cookie })).body;
    assert.equal(conns.connections[0].status, 'active', 'still connected');
  });

  it('refuses a delivery triggered more than 48 hours ago (Shopify retries for 48 hours), and a bad time', async () => {
    const shopDomain = newShopDomain('data');
    const body = JSON.stringify(orderPayload(950001, 'late@example.test'));
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
    /** The order, delivered under a new webhook id with this X-Shopify-Triggered-At. */
    const triggered = async (triggeredAt: string) => {
      const webhookId = randomUUID();
      return { webhookId, res: await post(body, { topic: 'orders/create', shop: shopDomain, webhookId, triggeredAt }) };
    };

    const { webhookId: staleId, res: stale } = await triggered(hoursAgo(49));
    assert.equal(stale.status, 400, stale.text);
    assert.match(stale.body.error, /more than 48 hours old/);
    assert.ok(!(await stored(staleId)));

    const { webhookId: badId, res: bad } = await triggered('yesterday');
    assert.deepEqual([bad.status, bad.body.error], [400, 'Invalid X-Shopify-Triggered-At']);
    assert.ok(!(await stored(badId)));

    // within the window (a late retry): taken
    const { webhookId: lateId, res: late } = await triggered(hoursAgo(47));
    assert.equal(late.status, 200, late.text);
    assert.ok(await stored(lateId));
    const row = await inspect.shopifyWebhook(lateId);
    assert.ok(Math.abs(row!.triggeredAt!.getTime() - (Date.now() - 47 * 3600_000)) < 60_000);
  });
});
