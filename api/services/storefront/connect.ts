// Connecting a Shopify store: the OAuth install (started here or from Shopify's side), the callback's token exchange
// and webhook registration (inline: the merchant's browser waits on that redirect), the list, and disconnecting.
import type { z } from 'zod';
import type { connectionResource } from '../../http/resources';
import { randomBytes } from 'node:crypto';
import {
  activateConnection,
  consumeOAuthState,
  disconnectForUser,
  forgetWebhookSubscriptions,
  insertOAuthState,
  listConnections,
  recordWebhookSubscription,
  storeConnectionToken,
  upsertConnection,
  webhookSubscriptionsOf,
  type ConnectionRow,
} from '../../../db/storefront';
import { randomSuffix } from '../../../lib/ids';
import { gatewayFor, shopAdminPage, ShopifyRefusedError, userErrorMessage } from '../../../lib/shopify/client';
import {
  SHOP_NAME_QUERY,
  SUBSCRIPTION_GONE,
  topicEnum,
  WEBHOOK_SUBSCRIPTION_CREATE,
  WEBHOOK_SUBSCRIPTION_DELETE,
  type ShopNameData,
  type WebhookSubscriptionCreateData,
  type WebhookSubscriptionDeleteData,
} from '../../../lib/shopify/operations';
import { SUBSCRIBED_TOPICS } from '../../../lib/storefront/types';
import { decryptToken, encryptToken } from '../../../lib/token-cipher';
import { orTimeout } from '../../../lib/wait';
import type { AppDeps } from '../../context';
import { ApiError, badRequest, notFound } from '../../errors';
import { configured, INVALID_HMAC, INVALID_STATE, validShopDomain } from './common';

/** POST /connect/install: a single-use state bound to the user and shop, and the authorize URL. */
export async function startInstall(deps: AppDeps, userId: string, shop: string): Promise<{ url: string }> {
  const { g } = configured(deps);
  const state = randomBytes(24).toString('base64url');
  await insertOAuthState(deps.sql, { state, userId, shop, ttlMs: deps.config.shopify.stateTtlMs });
  return { url: g.authorizeUrl(shop, state) };
}

/**
 * GET /callback: hmac (library check), then the state: single use, unexpired, this shop, and issued to the user
 * whose session the browser carries (`userId`; none, or another user's, connects nothing and leaves the state
 * alone), the code exchange, the encrypted token, the shop's name, the webhook subscriptions, active. Returns where
 * to send the browser: the dashboard's Storefront page, which says "Store connected".
 */
export async function completeCallback(
  deps: AppDeps,
  query: Record<string, string>,
  userId: string | undefined,
): Promise<string> {
  const { g, tokenKey } = configured(deps);
  if (!query.hmac || !(await g.validCallbackHmac(query))) throw badRequest(INVALID_HMAC);
  const shop = query.shop ?? '';
  if (!validShopDomain(shop) || !query.state || !userId) throw badRequest(INVALID_STATE);
  if (!(await consumeOAuthState(deps.sql, query.state, shop, userId))) throw badRequest(INVALID_STATE);
  if (!query.code) throw badRequest('Missing code');

  const conn = await upsertConnection(deps.sql, { id: `shc_${randomSuffix(16)}`, userId, shopDomain: shop });
  try {
    const { accessToken, scope } = await g.exchangeCode(shop, query.code);
    await storeConnectionToken(deps.sql, conn.id, encryptToken(tokenKey, accessToken), scope);
    const { shop: info } = await g.graphql<ShopNameData>(shop, accessToken, SHOP_NAME_QUERY);
    const callbackUrl = `${deps.config.publicBaseUrl}/api/storefront/webhooks/orders`;
    for (const topic of SUBSCRIBED_TOPICS) {
      const r = await g.graphql<WebhookSubscriptionCreateData>(shop, accessToken, WEBHOOK_SUBSCRIPTION_CREATE, {
        topic: topicEnum(topic),
        webhookSubscription: { callbackUrl, format: 'JSON' },
      });
      const created = r.webhookSubscriptionCreate.webhookSubscription;
      const errors = userErrorMessage(r.webhookSubscriptionCreate.userErrors);
      if (created && !errors) {
        // its id, so that a disconnect can delete it
        await recordWebhookSubscription(deps.sql, { shopDomain: shop, subscriptionId: created.id, topic, callbackUrl });
        continue;
      }
      // Taken: the subscription is in place already, registered by another user's active connection to the shop
      // (on record), or one a disconnect could not delete (on record, deleted at the next disconnect), or one made
      // before ids were recorded (migration 017; not on record: it stays until the app is uninstalled).
      if (errors && /already been taken/i.test(errors)) continue;
      throw new ShopifyRefusedError(`webhookSubscriptionCreate ${topic}: ${errors ?? 'no subscription returned'}`);
    }
    await activateConnection(deps.sql, conn.id, info.name);
  } catch (err) {
    if (err instanceof ShopifyRefusedError)
      throw new ApiError(502, 'service_unavailable', `Shopify refused: ${err.message}`);
    throw new ApiError(502, 'service_unavailable', 'Could not reach the shop to finish connecting; try again');
  }
  return `${deps.config.publicBaseUrl}/storefront?connected=${encodeURIComponent(conn.id)}`;
}

/**
 * GET /app, the app URL (an install started from Shopify's side: the merchant adds or opens the app in the shop's
 * admin and Shopify opens this URL with shop, hmac, timestamp and no state). The hmac is checked by the library as
 * the callback's is. A signed-in user is taken into a fresh install for that shop (the authorize URL, with a new
 * state bound to them); a signed-out browser goes to the Storefront page with the shop filled in, which asks them
 * to sign in first and then to confirm with Connect (an unsigned link never starts an install by itself).
 */
export async function appLaunch(
  deps: AppDeps,
  query: Record<string, string>,
  userId: string | undefined,
): Promise<string> {
  const { g } = configured(deps);
  if (!query.hmac || !(await g.validCallbackHmac(query))) throw badRequest(INVALID_HMAC);
  const shop = query.shop ?? '';
  if (!validShopDomain(shop)) throw badRequest('Invalid shop');
  if (!userId) return `${deps.config.publicBaseUrl}/storefront?shop=${encodeURIComponent(shop)}`;
  return (await startInstall(deps, userId, shop)).url;
}

export const presentConnection = (c: ConnectionRow, devShopUrl?: string): z.infer<typeof connectionResource> => ({
  id: c.id,
  shopDomain: c.shopDomain,
  shopName: c.shopName,
  status: c.status === 'active' ? 'active' : 'disconnected',
  installedAt: c.installedAt?.toISOString() ?? null,
  adminUrl: shopAdminPage(c.shopDomain, '', devShopUrl),
});

export async function connections(deps: AppDeps, userId: string) {
  return (await listConnections(deps.sql, userId)).map((c) => presentConnection(c, deps.config.shopify.devShopUrl));
}

/** How long a disconnect waits for Shopify to delete one webhook subscription. */
const SUBSCRIPTION_DELETE_TIMEOUT_MS = 10_000;

/**
 * DELETE /connect/<id>: the connection is disconnected and its access token erased (null) first, in one statement,
 * whatever Shopify answers next. Then, unless another user's connection to the shop is still active (the shop's
 * subscriptions serve it too), each webhook subscription on record for the shop is deleted at Shopify
 * (webhookSubscriptionDelete) with the token just erased, held in memory for these calls only. A subscription
 * Shopify deleted, or says does not exist, is forgotten; one it could not be asked to delete (unreachable, slow,
 * refused, the storefront not configured) stays on record and is reported in `webhooks.notRemoved`: its deliveries
 * are stored and ignored (no active connection), and the next disconnect of the shop (after a reconnect) deletes it.
 * No token is kept anywhere to retry with (see docs/storefront.md).
 */
export async function disconnectConnection(deps: AppDeps, userId: string, id: string) {
  const before = await disconnectForUser(deps.sql, id, userId);
  if (!before) throw notFound('Connection not found');
  const webhooks = { removed: [] as string[], notRemoved: [] as string[], keptForOtherConnections: [] as string[] };
  const subs = await webhookSubscriptionsOf(deps.sql, before.shopDomain);
  if (before.othersActive) {
    webhooks.keptForOtherConnections = subs.map((s) => s.topic);
    return { id, status: 'disconnected' as const, webhooks };
  }
  const g = gatewayFor(deps.config);
  const tokenKey = deps.config.shopify.tokenKey;
  let token: string | undefined;
  try {
    if (before.status === 'active' && before.accessTokenEnc && tokenKey)
      token = decryptToken(tokenKey, before.accessTokenEnc);
  } catch {
    token = undefined; // a token the key cannot open cannot delete anything either
  }
  for (const sub of subs) {
    if (!g || !token) {
      webhooks.notRemoved.push(sub.topic);
      continue;
    }
    try {
      const r = await orTimeout(
        SUBSCRIPTION_DELETE_TIMEOUT_MS,
        g.graphql<WebhookSubscriptionDeleteData>(before.shopDomain, token, WEBHOOK_SUBSCRIPTION_DELETE, {
          id: sub.subscriptionId,
        }),
        `no answer within ${SUBSCRIPTION_DELETE_TIMEOUT_MS} ms`,
      );
      const errors = userErrorMessage(r.webhookSubscriptionDelete.userErrors);
      if (r.webhookSubscriptionDelete.deletedWebhookSubscriptionId || (errors && SUBSCRIPTION_GONE.test(errors))) {
        await forgetWebhookSubscriptions(deps.sql, before.shopDomain, [sub.subscriptionId]);
        webhooks.removed.push(sub.topic);
      } else {
        deps.log.warn('shopify refused to delete a webhook subscription', {
          connectionId: id,
          subscriptionId: sub.subscriptionId,
          errors,
        });
        webhooks.notRemoved.push(sub.topic);
      }
    } catch (err) {
      deps.log.warn('could not delete a shopify webhook subscription', {
        connectionId: id,
        subscriptionId: sub.subscriptionId,
        error: (err as Error).message,
      });
      webhooks.notRemoved.push(sub.topic);
    }
  }
  return { id, status: 'disconnected' as const, webhooks };
}
