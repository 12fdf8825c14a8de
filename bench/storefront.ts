// Storefront benchmark: publish latency (POST /api/storefront/publish → productSet on the local development shop →
// recorded; target ≤ 1 s) and webhook acknowledgement (signed orders/create → stored → 200, the workflow is started
// after the answer; target p50 ≤ 20 ms), and the production of a 5-line order (placed on the dev shop → print files,
// job sheet and ZIP ready; target ≤ 5 s). Starts the stack like npm start (bench/stack.ts) with the local shop in this process.
// Run: node --import tsx bench/storefront.ts. Prints a table and writes bench/results/storefront.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { signBody, startDevShop } from '../scripts/stand-ins/shopify-shop';
import { machineInfo, stats } from './lib';
import { startBenchStack } from './stack';

const RESULTS = path.join(__dirname, 'results', 'storefront.json');
const PUBLISHES = Number(process.argv[2] ?? 20);
const WEBHOOKS = Number(process.argv[3] ?? 200);
const say = (m: string) => process.stderr.write(`[bench:storefront] ${m}\n`);

async function main() {
  const apiSecret = randomBytes(16).toString('hex');
  const shop = await startDevShop({ apiKey: 'bench-app', apiSecret });
  Object.assign(process.env, {
    SHOPIFY_API_KEY: 'bench-app',
    SHOPIFY_API_SECRET: apiSecret,
    SHOPIFY_SHOP_BASE_URL: shop.url,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ALLOW_PRIVATE_URLS: 'true',
  });
  const stack = await startBenchStack({ dataDir: path.join(__dirname, '..', '.data', 'bench-storefront'), say });
  try {
    const base = stack.baseUrl;
    const j = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(base + p, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
      });
      const text = await res.text();
      return { res, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
    };
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const signup = await j('POST', '/api/auth/signup', { email, password: 'Correct-Horse-42' });
    const cookie = signup.res.headers.getSetCookie()[0]!.split(';')[0]!;
    const key = (await j('POST', '/api/v1/keys', { name: 'bench' }, { cookie })).body.key as string;

    const shopDomain = 'bench-shop.myshopify.com';
    const install = await j('POST', '/api/storefront/connect/install', { shop: shopDomain }, { cookie });
    // Install on the dev shop's consent page, then the callback in the installing user's session
    const approve = await shop.approve(install.body.url);
    const cb = await fetch(approve.location!, { redirect: 'manual', headers: { cookie } });
    const connectionId = new URL(cb.headers.get('location')!).searchParams.get('connected')!;

    const garments = (await j('GET', '/api/v1/garments?limit=1', undefined, { authorization: `Bearer ${key}` })).body;
    const garment = garments.garments[0];
    const design = await sharp({
      create: { width: 600, height: 600, channels: 4, background: { r: 20, g: 90, b: 200, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const up = await fetch(`${base}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ imageData: `data:image/png;base64,${design.toString('base64')}` }),
    });
    const designUrl = ((await up.json()) as { url: string }).url;
    const gen = await j(
      'POST',
      '/api/v1/generate',
      { designUrl, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
      { authorization: `Bearer ${key}` },
    );
    if (gen.body.status !== 'completed') throw new Error(`generation failed: ${JSON.stringify(gen.body)}`);

    say(`publishing ${PUBLISHES} products one after another`);
    const publishMs: number[] = [];
    let productId = '';
    for (let i = 0; i < PUBLISHES; i++) {
      const t0 = performance.now();
      const r = await j(
        'POST',
        '/api/storefront/publish',
        { generationId: gen.body.id, connectionId, title: `Bench tee ${i}` },
        { cookie },
      );
      publishMs.push(performance.now() - t0);
      if (r.res.status !== 200) throw new Error(`publish answered ${r.res.status}: ${JSON.stringify(r.body)}`);
      productId = r.body.productId;
    }

    // production of a 5-line order (issue 36; target ≤ 5 s): placed on the dev shop (signed orders/create and
    // orders/paid), until GET /api/storefront/orders/<id> says ready: five print files (sizes not made before: M was
    // made at publishing, for the cost), the job sheet and the ZIP
    say('placing a 5-line order and waiting for its production');
    const sizes = ['S', 'L', 'XL', '2XL', '3XL'].filter((x) => garment.sizes.includes(x));
    const t0 = performance.now();
    const placed = await shop.placeOrder(shopDomain, {
      lines: sizes.map((size) => ({ productId, size })),
      shipTo: 'Bench Customer',
    });
    const gid = `gid://shopify/Order/${placed.order.id}`;
    let productionMs = NaN;
    for (let tries = 0; tries < 1200; tries++) {
      const list = (await j('GET', '/api/storefront/orders', undefined, { cookie })).body.orders as any[];
      const o = list.find((x) => x.shopifyOrderId === gid);
      if (o?.production?.status === 'failed') throw new Error(`production failed: ${o.production.error}`);
      if (o?.production?.status === 'ready') {
        productionMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }

    say(`sending ${WEBHOOKS} signed orders/create webhooks one after another`);
    const ackMs: number[] = [];
    for (let i = 0; i < WEBHOOKS; i++) {
      const body = JSON.stringify({
        id: 900000 + i,
        name: `#B${i}`,
        currency: 'USD',
        total_price: '59.99',
        line_items: [{ title: 'Tee', quantity: 1, price: '59.99', product_id: 1 }],
      });
      const t0 = performance.now();
      const res = await fetch(`${base}/api/storefront/webhooks/orders`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-shopify-topic': 'orders/create',
          'x-shopify-shop-domain': shopDomain,
          'x-shopify-webhook-id': `bench-${randomBytes(8).toString('hex')}`,
          'x-shopify-api-version': '2026-10',
          'x-shopify-hmac-sha256': signBody(apiSecret, body),
        },
        body,
      });
      await res.arrayBuffer();
      ackMs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    }

    const result = {
      machine: machineInfo(),
      publish: { ...stats(publishMs), targetMs: 1000 },
      webhookAck: { ...stats(ackMs), targetP50Ms: 20 },
      production: { lines: sizes.length, ms: Math.round(productionMs), targetMs: 5000 },
    };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(result, null, 2));
    const row = (name: string, s: ReturnType<typeof stats>, target: string) =>
      `${name.padEnd(22)} ${String(s.n).padStart(5)} ${String(s.p50Ms).padStart(8)} ${String(s.p95Ms).padStart(8)} ${String(s.maxMs).padStart(8)}  ${target}`;
    process.stdout.write(
      [
        `${'measure'.padEnd(22)} ${'n'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)}  target`,
        row('publish (productSet)', result.publish, '≤ 1000 ms'),
        row('webhook ack', result.webhookAck, 'p50 ≤ 20 ms'),
        `production of a ${sizes.length}-line order, placed to ready: ${result.production.ms} ms (target ≤ 5000 ms)`,
        `written to ${path.relative(process.cwd(), RESULTS)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await stack.stop();
    await shop.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
