import { inboundStart, type InboundWorkflowStart } from '../inbound';
import type { ShopifyWebhookWorkflow } from './types';

/**
 * The workflow that processes a stored Shopify webhook (`shopifyWebhook` of workflows/):
 * `shopify-webhook-<X-Shopify-Webhook-Id>`.
 */
export function shopifyWebhookStart(
  workflow: ShopifyWebhookWorkflow,
  webhookId: string,
  accountId: string | null,
): InboundWorkflowStart {
  return inboundStart(workflow, `shopify-webhook-${webhookId}`, { webhookId, accountId: accountId ?? '' }, accountId);
}
