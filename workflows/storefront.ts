// Storefront workflows: publish a mockup as a Shopify product (publish-<published product id>), process a stored
// Shopify webhook (shopify-webhook-<webhook id>), send fulfillment tracking to the store (fulfillment-<order id>).
// Shopify calls retry with backoff on transient trouble; refusals and missing rows are non-retryable and end the
// workflow with the failure recorded.
import {
  ActivityFailure,
  ApplicationFailure,
  deprecatePatch,
  ParentClosePolicy,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { StorefrontActivities } from '../activities/storefront';
import {
  NON_RETRYABLE_STOREFRONT_ERRORS,
  type FulfillmentWorkflowInput,
  type FulfillmentWorkflowResult,
  type PublishWorkflowInput,
  type PublishWorkflowResult,
  type ShopifyWebhookInput,
  type ShopifyWebhookResult,
} from '../lib/storefront/types';
import { productionWorkflowId } from '../lib/production/types';
import { durableBookkeeping, outsideCall } from './policies';
import { production } from './production';

// Calls to the shop: 30 s each (a lost worker's call is retried after that), retried for about ten minutes
// (Shopify's rate limits and blips pass by then).
const shop = proxyActivities<StorefrontActivities>(outsideCall(NON_RETRYABLE_STOREFRONT_ERRORS));

// Bookkeeping in PostgreSQL: retried without limit (a database outage must delay the record, not lose it).
const db = proxyActivities<StorefrontActivities>(durableBookkeeping(NON_RETRYABLE_STOREFRONT_ERRORS));

const reason = (err: unknown) =>
  err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);

export async function publishProduct(input: PublishWorkflowInput): Promise<PublishWorkflowResult> {
  let ref;
  try {
    ref = await shop.publishToShopify({ publishedProductId: input.publishedProductId });
  } catch (err) {
    const error = reason(err);
    await db.recordPublishFailed({ publishedProductId: input.publishedProductId, error });
    return { status: 'failed', error };
  }
  await db.recordPublished({ publishedProductId: input.publishedProductId, ...ref });
  return { status: 'published', productId: ref.productId, handle: ref.handle };
}

export async function shopifyWebhook(input: ShopifyWebhookInput): Promise<ShopifyWebhookResult> {
  const { status, topic, production: toProduce = [] } = await db.processShopifyWebhook({ webhookId: input.webhookId });
  // A paid order with items of published products: its production (production-<order id>) runs on its own,
  // outliving this run; a second delivery finds it started already. The path without it, behind
  // patched('production-on-paid'), is gone (issue 34): a run checks the patch as its last step and returns, so none
  // that took the old path can still be open, and one still in its first step takes the new path as patched() would.
  if (toProduce.length > 0) deprecatePatch('production-on-paid');
  for (const p of toProduce) {
    try {
      await startChild(production, {
        workflowId: productionWorkflowId(p.orderId),
        args: [p],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        searchAttributes: { AccountId: [p.accountId] },
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  return { status, topic };
}

export async function fulfillment(input: FulfillmentWorkflowInput): Promise<FulfillmentWorkflowResult> {
  let fulfillmentId: string;
  try {
    ({ fulfillmentId } = await shop.sendFulfillment({ orderId: input.orderId, tracking: input.tracking }));
  } catch (err) {
    if (err instanceof ActivityFailure && !(err.cause instanceof ApplicationFailure && err.cause.nonRetryable))
      throw err;
    return { status: 'failed', error: reason(err) };
  }
  await db.recordFulfillment({ orderId: input.orderId, fulfillmentId, tracking: input.tracking });
  return { status: 'fulfilled', fulfillmentId };
}
