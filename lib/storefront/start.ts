import type { InboundWorkflowStart } from '../inbound';
import type { ShopifyWebhookInput } from './types';

/** The workflow that processes a stored Shopify webhook: `shopify-webhook-<X-Shopify-Webhook-Id>`. */
export function shopifyWebhookStart(webhookId: string, accountId: string | null): InboundWorkflowStart {
  const input: ShopifyWebhookInput = { webhookId, accountId: accountId ?? '' };
  return { workflowType: 'shopifyWebhook', workflowId: `shopify-webhook-${webhookId}`, args: [input], accountId };
}
