// Shopify's webhooks: the signed delivery checked, stored once, answered, and its workflow started after the answer.
import { createHash } from 'node:crypto';
import { connectionsOfShop } from '../../../db/storefront';
import { storeWebhook } from '../../../db/shopify-webhooks';
import { startInboundWorkflow } from '../../../lib/inbound';
import { shopifyWebhookStart } from '../../../lib/storefront/start';
import { parseJsonKeepingBigIntegers } from '../../../lib/shopify/json';
import { COMPLIANCE_TOPICS } from '../../../lib/storefront/types';
import { shopifyWebhook } from '../../../workflows';
import type { AppDeps } from '../../context';
import { badRequest, unauthorized } from '../../errors';
import { configured, INVALID_HMAC, validShopDomain } from './common';

/** Shopify retries a failed delivery for up to 48 hours; an older X-Shopify-Triggered-At is not a delivery. */
export const WEBHOOK_MAX_AGE_MS = 48 * 3600_000;
export const STALE_WEBHOOK = 'Stale delivery: X-Shopify-Triggered-At is more than 48 hours old';
export const SHOP_DOMAIN_MISMATCH = 'shop_domain in the body does not match X-Shopify-Shop-Domain';

/** Topics whose body names the shop (`shop_domain`); app/uninstalled's body is the shop (`myshopify_domain`). */
const COMPLIANCE = new Set<string>(COMPLIANCE_TOPICS);

/** A delivery as the route received it: the raw body (what Shopify signed) and the headers, names in lower case. */
export interface WebhookDelivery {
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
}

const header = (headers: WebhookDelivery['headers'], name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * POST /webhooks/orders: the library checks X-Shopify-Hmac-Sha256 over the raw body (401 when missing or wrong)
 * and the required headers. The headers (topic, shop, webhook id, event id, triggered-at) are not signed, so: a
 * compliance request whose body names another shop than X-Shopify-Shop-Domain is refused (400), as is an
 * app/uninstalled whose shop is another; a delivery triggered more than 48 hours ago is refused (400). The webhook
 * is stored before the answer, unless it was stored before: the same webhook id (a retry), the same
 * X-Shopify-Event-Id (or, without one, the same topic + body), or for an order topic the same topic + body (a
 * captured order re-sent under fresh ids). A duplicate is answered 200 and starts nothing new; a new one's
 * workflow shopify-webhook-<id> is started after the answer.
 */
export async function receiveWebhook(deps: AppDeps, { rawBody, headers }: WebhookDelivery) {
  const { g } = configured(deps);
  const v = await g.validWebhook(rawBody, headers);
  if (!v.valid) {
    if ('missingHeaders' in v) throw badRequest(`Missing headers: ${v.missingHeaders.join(', ')}`);
    throw unauthorized(INVALID_HMAC);
  }
  const id = String(header(headers, 'x-shopify-webhook-id'));
  const topic = String(header(headers, 'x-shopify-topic'));
  const shop = String(header(headers, 'x-shopify-shop-domain'));
  const eventId = header(headers, 'x-shopify-event-id');
  const triggered = header(headers, 'x-shopify-triggered-at');
  if (id.length > 200 || !/^[\w.:-]+$/.test(id)) throw badRequest('Invalid X-Shopify-Webhook-Id');
  if (!validShopDomain(shop)) throw badRequest('Invalid X-Shopify-Shop-Domain');
  if (eventId !== undefined && (eventId.length > 200 || !/^[\w.:-]+$/.test(eventId)))
    throw badRequest('Invalid X-Shopify-Event-Id');
  let triggeredAt: Date | null = null;
  if (triggered !== undefined) {
    triggeredAt = new Date(triggered);
    if (Number.isNaN(triggeredAt.getTime())) throw badRequest('Invalid X-Shopify-Triggered-At');
    if (Date.now() - triggeredAt.getTime() > WEBHOOK_MAX_AGE_MS) throw badRequest(STALE_WEBHOOK);
  }
  let body: unknown;
  try {
    body = parseJsonKeepingBigIntegers(rawBody); // 64-bit ids kept exact (as strings), never rounded
  } catch (err) {
    // only a body that is not JSON is the sender's fault (a Node without source text access is ours: a 500)
    if (err instanceof SyntaxError) throw badRequest('Malformed JSON body');
    throw err;
  }
  const named = (field: string) =>
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (COMPLIANCE.has(topic) && named('shop_domain') !== shop) throw badRequest(SHOP_DOMAIN_MISMATCH);
  const shopOfBody = named('myshopify_domain');
  if (topic === 'app/uninstalled' && shopOfBody !== undefined && shopOfBody !== shop)
    throw badRequest('myshopify_domain in the body does not match X-Shopify-Shop-Domain');

  const bodySha256 = createHash('sha256').update(`${topic}\n`).update(rawBody).digest('hex');
  const stored = await storeWebhook(deps.sql, {
    id,
    topic,
    shopDomain: shop,
    apiVersion: header(headers, 'x-shopify-api-version') ?? null,
    body,
    dedupKey: eventId ? `event:${eventId}` : `sha256:${bodySha256}`,
    bodySha256,
    eventId: eventId ?? null,
    triggeredAt,
  });
  // Stored: the answer goes out now, and the workflow is started after it (`dispatch`). If that start fails (the
  // API dies, Temporal is unreachable), the inbound sweep starts it within a minute. A duplicate of a delivery
  // still waiting starts that delivery's workflow (the same id: started once).
  const dispatch =
    stored.inserted || stored.status === 'received'
      ? async () => {
          const [owner] = await connectionsOfShop(deps.sql, shop);
          await startInboundWorkflow(
            deps.temporal,
            deps.config.temporal.taskQueue,
            shopifyWebhookStart(shopifyWebhook, stored.id, owner?.userId ?? null),
          );
        }
      : undefined;
  return { received: true, duplicate: !stored.inserted, dispatch };
}
