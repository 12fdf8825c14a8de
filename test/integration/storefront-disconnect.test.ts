// Storefront disconnection and Shopify's large order ids, over HTTP against the real stack and the local development
// shop:
// - a disconnect deletes the webhook subscriptions registered at connect, at the shop (webhookSubscriptionDelete by
//   the ids webhookSubscriptionCreate answered), erases the access token, and a reconnect registers them again; a
//   shop that cannot be reached during a disconnect still leaves the connection disconnected and its token erased,
//   and its subscriptions on record for the next disconnect; a shop another user is still connected to keeps them;
// - Shopify's documented orders/create sample (ids above 2^53), sent unchanged, shows as an order with its exact ids.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseJsonKeepingBigIntegers } from '../../lib/shopify/json';
import { parseOrder } from '../../lib/storefront/orders';
import { account, http } from '../helpers/http';
import * as inspect from '../helpers/db-inspect';
import { newShopDomain, useShopStack } from '../helpers/storefront';
const TOPICS = ['orders/create', 'orders/paid', 'app/uninstalled'];
const SAMPLE = path.resolve(__dirname, '../fixtures/shopify-orders-create-sample.json');

describe('storefront: disconnect removes our webhooks at Shopify; 64-bit Shopify ids', function () {
  this.timeout(120_000);
  const t = useShopStack('storefront-disconnect', {
    // kept in a file so that the shop can be stopped (unreachable) and started again with its subscriptions
    shop: { stateFile: path.join(mkdtempSync(path.join(tmpdir(), 'storefront-disconnect-')), 'dev-shop-state.json') },
  });
  const { stack, shop, connect, webhookProcessed } = t;
  const callbackUrl = () => `${stack.baseUrl}/api/storefront/webhooks/orders`;

  /** The dev shop's subscriptions of a shop: [topic, id], in order. */
  const atShop = (shopDomain: string) =>
    (shop.subscriptions.get(shopDomain) ?? []).map((s) => {
      assert.equal(s.callbackUrl, callbackUrl());
      return [s.topic, s.id];
    });

  /** Our record of a shop's subscriptions: [topic, id]. */
  const onRecord = inspect.shopifySubscriptionsOnRecord;
  const connectionRow = async (id: string) => (await inspect.shopifyConnection(id))!;

  it('deletes the subscriptions at the shop and erases the token; a reconnect registers them again', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const id = await connect(acct.cookie, shopDomain);

    const registered = atShop(shopDomain);
    assert.deepEqual(
      registered.map(([t]) => t),
      TOPICS,
    );
    for (const [, sid] of registered) assert.match(sid!, /^gid:\/\/shopify\/WebhookSubscription\/\d+$/);
    assert.deepEqual(await onRecord(shopDomain), registered, 'the ids webhookSubscriptionCreate answered');
    assert.ok((await connectionRow(id)).token, 'an active connection holds its token');

    const del = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: acct.cookie });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, {
      id,
      status: 'disconnected',
      webhooks: { removed: TOPICS, notRemoved: [], keptForOtherConnections: [] },
    });
    assert.deepEqual(atShop(shopDomain), [], 'no subscription left at the shop');
    assert.deepEqual(await onRecord(shopDomain), []);
    assert.deepEqual(await connectionRow(id), { status: 'disconnected', token: null });
    // deleting one again: Shopify's userError for an unknown id
    const again = await fetch(`${shop.url}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-shop-domain': shopDomain,
        'x-shopify-access-token': shop.tokenFor(shopDomain),
      },
      body: JSON.stringify({
        query:
          'mutation D($id: ID!) { webhookSubscriptionDelete(id: $id) { deletedWebhookSubscriptionId userErrors { field message } } }',
        variables: { id: registered[0]![1] },
      }),
    });
    assert.deepEqual(((await again.json()) as any).data.webhookSubscriptionDelete, {
      deletedWebhookSubscriptionId: null,
      userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }],
    });

    // a second DELETE: still disconnected, nothing left to remove
    const twice = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: acct.cookie });
    assert.deepEqual(twice.body.webhooks, { removed: [], notRemoved: [], keptForOtherConnections: [] });

    assert.equal(await connect(acct.cookie, shopDomain), id, 'the connection is reused');
    const again2 = atShop(shopDomain);
    assert.deepEqual(
      again2.map(([t]) => t),
      TOPICS,
      'registered again',
    );
    for (const [i, [, sid]] of again2.entries()) assert.notEqual(sid, registered[i]![1], 'new subscriptions');
    assert.deepEqual(await onRecord(shopDomain), again2);
    assert.equal((await connectionRow(id)).status, 'active');
    // and orders arrive again
    const order = await shop.sendWebhook(shopDomain, 'orders/create', {
      id: 4242,
      name: '#4242',
      currency: 'USD',
      total_price: '10.00',
      line_items: [],
    });
    assert.equal(order.status, 200);
  });

  it('a shop unreachable during the disconnect: disconnected and token erased anyway; the next disconnect deletes them', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const id = await connect(acct.cookie, shopDomain);
    const registered = atShop(shopDomain);

    await shop.stop();
    let del;
    try {
      del = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: acct.cookie });
    } finally {
      await t.startShopAgain();
    }
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, {
      id,
      status: 'disconnected',
      webhooks: { removed: [], notRemoved: TOPICS, keptForOtherConnections: [] },
    });
    assert.deepEqual(await connectionRow(id), { status: 'disconnected', token: null });
    assert.deepEqual(atShop(shopDomain), registered, 'still at the shop');
    assert.deepEqual(await onRecord(shopDomain), registered, 'kept on record');

    // a delivery to them meanwhile is stored and ignored: no active connection, no order
    const sent = await shop.sendWebhook(shopDomain, 'orders/create', {
      id: 77,
      name: '#77',
      currency: 'USD',
      total_price: '1.00',
      line_items: [],
    });
    assert.equal(sent.status, 200);
    assert.deepEqual(await webhookProcessed(sent.webhookId), {
      status: 'ignored',
      topic: 'orders/create',
    });

    // reconnect: the subscriptions are in place ("already been taken") and on record; the next disconnect deletes them
    assert.equal(await connect(acct.cookie, shopDomain), id);
    assert.deepEqual(atShop(shopDomain), registered);
    const del2 = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: acct.cookie });
    assert.deepEqual(del2.body.webhooks, { removed: TOPICS, notRemoved: [], keptForOtherConnections: [] });
    assert.deepEqual(atShop(shopDomain), []);
    assert.deepEqual(await onRecord(shopDomain), []);
  });

  it("keeps a shop's subscriptions while another user's connection to it is active", async () => {
    const a = await account(stack.baseUrl);
    const b = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const ida = await connect(a.cookie, shopDomain);
    const idb = await connect(b.cookie, shopDomain);
    const registered = atShop(shopDomain);
    assert.equal(registered.length, 3, 'one set per shop');

    const delA = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${ida}`, { cookie: a.cookie });
    assert.deepEqual(delA.body.webhooks, { removed: [], notRemoved: [], keptForOtherConnections: TOPICS });
    assert.deepEqual(atShop(shopDomain), registered);
    assert.equal((await connectionRow(ida)).token, null);

    const delB = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${idb}`, { cookie: b.cookie });
    assert.deepEqual(delB.body.webhooks, { removed: TOPICS, notRemoved: [], keptForOtherConnections: [] });
    assert.deepEqual(atShop(shopDomain), []);
  });

  it('parses Shopify JSON keeping integers above 2^53 exact (as their digits)', () => {
    const text = readFileSync(SAMPLE, 'utf8');
    const body = parseJsonKeepingBigIntegers(text) as Record<string, any>;
    assert.equal(body.id, '820982911946154508');
    assert.equal(body.customer.id, '115310627314723954');
    assert.deepEqual(
      body.line_items.map((li: { id: string }) => li.id),
      ['866550311766439020', '141249953214522974'],
    );
    assert.equal(body.line_items[0].product_id, 632910392, 'a safe integer stays a number');
    assert.equal(body.total_weight, 0);
    // JSON.parse rounds it: another order's id
    assert.notEqual(String((JSON.parse(text) as { id: number }).id), '820982911946154508');
    // a rounded number is never taken as an id
    const rounded = parseOrder({ ...body, id: Number(body.id) });
    assert.equal(rounded.ok, false);
  });

  it("takes Shopify's documented orders/create sample unchanged: the order shows with its exact ids", async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    await connect(acct.cookie, shopDomain);
    const raw = readFileSync(SAMPLE, 'utf8');
    assert.match(raw, /"id": 820982911946154508,/, 'the id is a bare JSON number above 2^53, as Shopify sends it');

    const sent = await shop.sendWebhook(shopDomain, 'orders/create', raw);
    assert.equal(sent.status, 200);
    assert.deepEqual(await webhookProcessed(sent.webhookId), {
      status: 'processed',
      topic: 'orders/create',
    });
    const orders = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
    assert.equal(orders.status, 200);
    assert.equal(orders.body.orders.length, 1);
    const o = orders.body.orders[0];
    assert.equal(o.shopifyOrderId, 'gid://shopify/Order/820982911946154508');
    assert.equal(o.name, '#9999');
    assert.deepEqual(o.customer, { name: 'John Smith', email: 'john@example.com' });
    assert.deepEqual(
      o.lineItems.map((li: { title: string; shopifyProductId: string }) => [li.title, li.shopifyProductId]),
      [
        ['IPod Nano - 8GB', 'gid://shopify/Product/632910392'],
        ['IPod Nano - 8GB', 'gid://shopify/Product/632910392'],
      ],
    );
    const [row] = await inspect.shopifyOrderIds(shopDomain);
    assert.deepEqual(row, { orderId: 'gid://shopify/Order/820982911946154508', customerId: '115310627314723954' });
    // the stored body keeps the exact digits too (the compliance redactions match on them)
    const stored = await inspect.shopifyWebhookBodyIds(sent.webhookId);
    assert.deepEqual(stored, { id: '820982911946154508', customer: '115310627314723954' });

    // a customers/data_request naming the order by its 64-bit id finds it
    const dr = await shop.sendWebhook(
      shopDomain,
      'customers/data_request',
      `{"shop_id":954889,"shop_domain":"${shopDomain}","orders_requested":[820982911946154508],` +
        `"customer":{"id":115310627314723954,"email":"john@example.com","phone":"555-625-1199"},` +
        `"data_request":{"id":9999}}`,
      { url: callbackUrl() },
    );
    assert.equal(dr.status, 200);
    await webhookProcessed(dr.webhookId);
    const requests = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: acct.cookie });
    const req = requests.body.dataRequests.find((r: { id: string }) => r.id === dr.webhookId);
    assert.ok(req, requests.text);
    assert.deepEqual(req.ordersRequested, ['gid://shopify/Order/820982911946154508']);
    assert.deepEqual(
      req.orders.map((x: { order: string }) => x.order),
      ['gid://shopify/Order/820982911946154508'],
    );
  });
});
