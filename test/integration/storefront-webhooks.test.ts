// Storefront webhooks through HTTP against the real stack and the local development shop: signatures, a duplicate
// webhook id, a webhook answered while Temporal is unreachable (the inbound sweep processes it once), the compliance
// topics (exports, customer and shop erasure), the retention of bodies and exports, a malformed compliance payload.
import assert from 'node:assert/strict';
import { WorkflowNotFoundError } from '@temporalio/client';
import * as R from '../../api/http/resources';
import { randomSuffix } from '../../lib/ids';
import { signBody } from '../../scripts/stand-ins/shopify-shop';
import { inboundEventsSweep, maintenanceSweep } from '../../workflows';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { unreachableTemporal, withApiOn } from '../helpers/stack';
import { newShopDomain, useShopStack } from '../helpers/storefront';
import { until } from '../helpers/wait';

describe('storefront: Shopify webhooks, compliance and retention', function () {
  this.timeout(120_000);
  const t = useShopStack('storefront-webhooks');
  const { stack, shop, connect, webhookProcessed } = t;

  it('answers 401 to webhooks with a missing or wrong signature, and stores nothing', async () => {
    const body = JSON.stringify({ id: 1 });
    const id = `wh-${randomSuffix(10)}`;
    const headers = {
      'content-type': 'application/json',
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': newShopDomain(),
      'x-shopify-webhook-id': id,
      'x-shopify-api-version': '2026-10',
    };
    let res = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', { headers, body });
    assert.equal(res.status, 401);
    assert.equal(typeof res.body.error, 'string');
    res = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', {
      headers: { ...headers, 'x-shopify-hmac-sha256': signBody('not-the-secret', body) },
      body,
    });
    assert.equal(res.status, 401);
    res = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', {
      headers: { ...headers, 'x-shopify-hmac-sha256': signBody(t.apiSecret, body) },
      body: body + ' ',
    });
    assert.equal(res.status, 401, 'a changed body fails');
    assert.equal(await inspect.shopifyWebhook(id), undefined);
  });

  it('records one order for a duplicate webhook id', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    await connect(acct.cookie, shopDomain);
    const payload = {
      id: 555001,
      admin_graphql_api_id: 'gid://shopify/Order/555001',
      name: '#5001',
      currency: 'USD',
      total_price: '20.00',
      customer: { id: 9, first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test' },
      line_items: [{ title: 'Tee', variant_title: 'L', quantity: 1, price: '20.00', product_id: 42 }],
    };
    const webhookId = `dup-${randomSuffix(10)}`;
    const a = await shop.sendWebhook(shopDomain, 'orders/create', payload, { webhookId });
    const b = await shop.sendWebhook(shopDomain, 'orders/create', { ...payload, id: 555002 }, { webhookId });
    assert.deepEqual([a.status, b.status], [200, 200]);
    await until('the order', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      return r.body.orders.length > 0;
    });
    await webhookProcessed(webhookId);
    const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
    assert.equal(r.body.orders.length, 1);
    assert.equal(r.body.orders[0].name, '#5001');
    assert.equal(r.body.orders[0].lineItems[0].publishedProductId, null, 'no published product with that id');
    assert.ok(await inspect.shopifyWebhook(webhookId), 'the delivery is stored');
  });

  it('answers a webhook while Temporal is unreachable; the inbound sweep processes it once afterwards', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    await connect(acct.cookie, shopDomain);
    // A second API process whose Temporal cannot be reached (nothing listens on port 1).
    await withApiOn(stack, unreachableTemporal(), async (baseUrl) => {
      const url = `${baseUrl}/api/storefront/webhooks/orders`;
      const payload = {
        id: 666001,
        name: '#6001',
        currency: 'USD',
        total_price: '12.00',
        customer: { id: 7, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
        line_items: [{ title: 'Tee', quantity: 1, price: '12.00', product_id: 1 }],
      };
      const sent = await shop.sendWebhook(shopDomain, 'orders/create', payload, { url });
      assert.equal(sent.status, 200, 'answered although Temporal is unreachable');
      const again = await shop.sendWebhook(shopDomain, 'orders/create', payload, { url, webhookId: sent.webhookId });
      assert.equal(again.status, 200, 'a repeat is answered too');
      const row = await inspect.shopifyWebhook(sent.webhookId);
      assert.equal(row?.status, 'received', 'stored before the answer, not processed');
      await assert.rejects(
        stack.client.workflow.getHandle(`shopify-webhook-${sent.webhookId}`).describe(),
        WorkflowNotFoundError,
      );

      // The sweep leaves events younger than its grace period to the API that stored them.
      const sweep = () =>
        stack.client.workflow.execute(inboundEventsSweep, {
          workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
          taskQueue: stack.taskQueue,
        });
      await sweep();
      await assert.rejects(
        stack.client.workflow.getHandle(`shopify-webhook-${sent.webhookId}`).describe(),
        WorkflowNotFoundError,
      );
      await inspect.backdateShopifyWebhook(sent.webhookId, '1 minute');
      const first = await sweep();
      assert.ok(first.started >= 1);
      const second = await sweep();
      assert.equal(second.started, 0, 'a second sweep starts nothing new');
      await webhookProcessed(sent.webhookId);
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      assert.equal(r.body.orders.length, 1);
      assert.equal(r.body.orders[0].name, '#6001');
    });
  });

  /** Rows of the storefront tables whose text contains `needle` (case-insensitive), as `table: row`. */
  it('handles the compliance topics: exports (retrievable), then erases a customer everywhere, then the shop', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    await connect(acct.cookie, shopDomain);
    const tag = randomSuffix(8);
    const alan = { email: `alan-${tag}@example.test`, last: `Turing${tag}` };
    const grace = { email: `grace-${tag}@example.test`, last: `Hopper${tag}` };
    const order = {
      id: 777001,
      name: '#7001',
      email: alan.email,
      currency: 'EUR',
      total_price: '30.00',
      customer: { id: 31, first_name: 'Alan', last_name: alan.last, email: alan.email },
      shipping_address: { name: `Alan ${alan.last}`, address1: '1 Bletchley Park' },
      line_items: [{ title: 'Tee', quantity: 1, price: '30.00', product_id: 1 }],
    };
    const other = {
      ...order,
      id: 777002,
      name: '#7002',
      email: grace.email,
      customer: { id: 32, first_name: 'Grace', last_name: grace.last, email: grace.email },
      shipping_address: { name: `Grace ${grace.last}`, address1: '2 Arlington' },
    };
    const url = `${stack.baseUrl}/api/storefront/webhooks/orders`;
    const run = async (topic: string, payload: unknown) => {
      const { webhookId } = await shop.sendWebhook(shopDomain, topic, payload, { url });
      await webhookProcessed(webhookId);
      return (await inspect.shopifyWebhook(webhookId))!.result;
    };
    await run('orders/create', order);
    await run('orders/paid', { ...order, financial_status: 'paid' });
    await run('orders/create', other);
    const orders = async () =>
      (await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie })).body.orders;
    assert.equal((await orders()).length, 2);

    const exported = await run('customers/data_request', {
      shop_domain: shopDomain,
      customer: { id: 31, email: alan.email },
      orders_requested: [777001],
    });
    assert.equal(exported.exports[acct.userId].length, 1);
    assert.deepEqual(exported.exports[acct.userId][0].customer, {
      id: '31',
      name: `Alan ${alan.last}`,
      email: alan.email,
    });
    // the merchant retrieves it; nobody else sees it
    const requests = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: acct.cookie });
    assert.equal(requests.status, 200, requests.text);
    assert.ok(R.dataRequestList.safeParse(requests.body).success, requests.text);
    const mine = requests.body.dataRequests.filter((d: any) => d.shopDomain === shopDomain);
    assert.equal(mine.length, 1);
    assert.deepEqual(mine[0].customer, { id: '31', email: alan.email });
    assert.deepEqual(mine[0].ordersRequested, ['gid://shopify/Order/777001']);
    assert.deepEqual(
      mine[0].orders.map((o: any) => [o.name, o.customer.email, o.total]),
      [['#7001', alan.email, '30.00']],
    );
    const stranger = await account(stack.baseUrl);
    const none = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: stranger.cookie });
    assert.deepEqual(none.body, { dataRequests: [] });
    assert.equal((await http(stack.baseUrl, 'GET', '/api/storefront/data-requests')).status, 401);

    assert.ok(
      (await inspect.storefrontRowsHolding(alan.email)).length >= 4,
      'the orders, raw bodies and export hold the email',
    );
    const redacted = await run('customers/redact', {
      shop_domain: shopDomain,
      customer: { id: 31, email: alan.email },
      orders_to_redact: [777001],
    });
    assert.equal(redacted.ordersRedacted, 1);
    assert.ok(redacted.webhooksErased >= 3, JSON.stringify(redacted));
    const after = await orders();
    assert.deepEqual(after.find((o: any) => o.name === '#7001').customer, { name: null, email: null });
    assert.deepEqual(after.find((o: any) => o.name === '#7002').customer, {
      name: `Grace ${grace.last}`,
      email: grace.email,
    });
    assert.deepEqual(
      await inspect.storefrontRowsHolding(alan.email),
      [],
      'the email is nowhere in the storefront tables',
    );
    assert.deepEqual(
      await inspect.storefrontRowsHolding(alan.last),
      [],
      'the name is nowhere in the storefront tables',
    );
    assert.ok((await inspect.storefrontRowsHolding(grace.email)).length >= 2, "another customer's data is kept");
    const afterRedact = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: acct.cookie });
    assert.equal(afterRedact.body.dataRequests.filter((d: any) => d.shopDomain === shopDomain).length, 0);

    const erased = await run('shop/redact', { shop_domain: shopDomain });
    assert.equal(erased.ordersDeleted, 2);
    assert.equal((await orders()).length, 0);
    assert.deepEqual(
      await inspect.storefrontRowsHolding(grace.email),
      [],
      'shop/redact leaves no customer data of the shop',
    );
    assert.deepEqual(await inspect.storefrontRowsHolding(grace.last), []);
    assert.deepEqual(
      await inspect.shopifyWebhooksHoldingData(shopDomain),
      [],
      'no raw body or export of the shop is kept',
    );
  });

  it('erases processed webhook bodies and old exports after their retention (hourly maintenance sweep)', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    await connect(acct.cookie, shopDomain);
    const payload = (id: number) => ({
      id,
      name: `#${id}`,
      currency: 'USD',
      total_price: '10.00',
      customer: { id: 41, first_name: 'Kept', last_name: 'Brief', email: 'brief@example.test' },
      line_items: [{ title: 'Tee', quantity: 1, price: '10.00', product_id: 1 }],
    });
    const url = `${stack.baseUrl}/api/storefront/webhooks/orders`;
    const send = async (topic: string, body: unknown) => {
      const { webhookId } = await shop.sendWebhook(shopDomain, topic, body, { url });
      await webhookProcessed(webhookId);
      return webhookId;
    };
    const old = await send('orders/create', payload(881001));
    const fresh = await send('orders/create', payload(881002));
    const request = (order: number) => ({ shop_domain: shopDomain, customer: { id: 41 }, orders_requested: [order] });
    const oldExport = await send('customers/data_request', request(881001));
    const freshExport = await send('customers/data_request', request(881002));
    await inspect.backdateShopifyWebhook(old, '8 days', 'processed_at');
    await inspect.backdateShopifyWebhook(oldExport, '31 days', 'processed_at');

    const result = await stack.client.workflow.execute(maintenanceSweep, {
      workflowId: `maintenance-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    assert.ok(result.shopifyWebhookData!.bodies >= 2, JSON.stringify(result));
    assert.ok(result.shopifyWebhookData!.exports >= 1, JSON.stringify(result));
    const rows = await inspect.shopifyWebhooks([old, fresh, oldExport, freshExport]);
    const by = Object.fromEntries([...rows.values()].map((r) => [r.id, [r.hasBody, r.hasResult]]));
    assert.deepEqual(by[old], [false, false], 'body erased after 7 days');
    assert.deepEqual(by[fresh], [true, false], 'a recent body is kept');
    assert.deepEqual(by[oldExport], [false, false], 'export erased after 30 days');
    assert.deepEqual(by[freshExport], [true, true], 'a recent export is kept');
    assert.equal(
      (await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie })).body.orders.length,
      2,
    );
  });

  it('marks a signed but malformed compliance payload failed, and the inbound sweep does not restart it', async () => {
    const shopDomain = newShopDomain();
    const { status, webhookId } = await shop.sendWebhook(
      shopDomain,
      'customers/redact',
      { shop_domain: shopDomain, customer: 'not an object', orders_to_redact: ['x'] },
      { url: `${stack.baseUrl}/api/storefront/webhooks/orders` },
    );
    assert.equal(status, 200);
    await assert.rejects(webhookProcessed(webhookId));
    const row = await inspect.shopifyWebhook(webhookId);
    assert.equal(row!.status, 'failed');
    assert.match(row!.result.error, /compliance payload/);
    const handle = stack.client.workflow.getHandle(`shopify-webhook-${webhookId}`);
    const before = await handle.describe();
    assert.equal(before.status.name, 'FAILED');

    await inspect.backdateShopifyWebhook(webhookId, '5 minutes');
    await stack.client.workflow.execute(inboundEventsSweep, {
      workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    const afterSweep = await handle.describe();
    assert.equal(afterSweep.runId, before.runId, 'the sweep started no new run');
    assert.equal(afterSweep.status.name, 'FAILED');
  });
});
