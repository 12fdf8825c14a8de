// `npm run shop:order -- <connection id>`: asks the local development shop (started by `npm start` when
// SHOPIFY_API_KEY is unset; its address is in DATA_DIR/dev-shop.json) to place an order for the connection's latest
// published product and send the signed orders/create and orders/paid webhooks to the service. Development only.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createSql } from '../db/client';
import { loadConfig } from '../lib/config';
import { DEV_SHOP_FILE } from './stand-ins/dev-shop-start';

async function main(): Promise<void> {
  const connectionId = process.argv[2];
  if (!connectionId) throw new Error('usage: npm run shop:order -- <connection id>');
  const config = loadConfig();
  let devShop: { url: string };
  try {
    devShop = JSON.parse(readFileSync(path.join(config.dataDir, DEV_SHOP_FILE), 'utf8'));
  } catch {
    throw new Error('no local development shop: run `npm start` without SHOPIFY_API_KEY first');
  }
  const sql = createSql(
    config.databaseUrl ?? `postgres://postgres:mockups-local@127.0.0.1:${config.embeddedPgPort}/mockups`,
    { max: 1 },
  );
  try {
    const [row] = await sql<{ shop: string; productId: string | null; title: string | null; price: number | null }[]>`
      select c.shop_domain as shop, p.shopify_product_id as "productId", p.title, p.base_price_cents as price
      from shopify_connections c
      left join lateral (select * from published_products where connection_id = c.id and status = 'published'
        order by published_at desc limit 1) p on true
      where c.id = ${connectionId}`;
    if (!row) throw new Error(`connection ${connectionId} not found`);
    if (!row.productId) throw new Error(`connection ${connectionId} has no published product: publish one first`);
    const res = await fetch(`${devShop.url}/_dev/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': row.shop },
      body: JSON.stringify({ productId: row.productId, title: row.title, price: (row.price! / 100).toFixed(2) }),
    });
    const body = (await res.json()) as { order: { name: string }; deliveries: unknown };
    if (!res.ok) {
      const hint = /no subscription/.test(JSON.stringify(body)) ? ' (connect the store again to register them)' : '';
      throw new Error(`the development shop refused: ${JSON.stringify(body)}${hint}`);
    }
    process.stdout.write(
      `[dev shop] placed order ${body.order.name} in ${row.shop}; webhooks: ${JSON.stringify(body.deliveries)}\n`,
    );
  } finally {
    await sql.end();
  }
}

main().catch((err) => {
  process.stderr.write(`shop:order: ${(err as Error).message}\n`);
  process.exit(1);
});
