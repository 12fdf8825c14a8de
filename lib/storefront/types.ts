// The storefront flows' shared contract (workflows import this: plain data only): the inputs and results of the
// publish, Shopify webhook and fulfillment workflows, and the names of their non-retryable errors.

export interface PublishWorkflowInput {
  publishedProductId: string;
  accountId: string;
}

export interface PublishWorkflowResult {
  status: 'published' | 'failed';
  productId?: string;
  handle?: string;
  error?: string;
}

export interface ShopifyProductRef {
  productId: string;
  handle: string;
}

export interface ShopifyWebhookInput {
  webhookId: string;
  accountId: string;
}

export interface ShopifyWebhookResult {
  status: 'processed' | 'ignored';
  topic: string;
}

/** The `shopifyWebhook` workflow's signature: what the API and the inbound sweep start it by (lib/storefront/start.ts). */
export type ShopifyWebhookWorkflow = (input: ShopifyWebhookInput) => Promise<ShopifyWebhookResult>;

export interface FulfillmentWorkflowInput {
  orderId: string;
  accountId: string;
  tracking: Tracking;
}

export interface Tracking {
  number: string;
  company: string;
  url?: string;
}

export interface FulfillmentWorkflowResult {
  status: 'fulfilled' | 'failed';
  fulfillmentId?: string;
  error?: string;
}

/** Errors no retry can fix: the store is disconnected, the row is missing, Shopify refused the input. */
export const StorefrontErrors = {
  StoreNotConnected: 'StoreNotConnected',
  NotFound: 'StorefrontNotFound',
  Rejected: 'ShopifyRejected',
  BadWebhook: 'BadShopifyWebhook',
} as const;

export const NON_RETRYABLE_STOREFRONT_ERRORS: string[] = Object.values(StorefrontErrors);

/** Webhook topics the service subscribes to at install (the compliance topics are configured in the app itself). */
export const SUBSCRIBED_TOPICS = ['orders/create', 'orders/paid', 'app/uninstalled'] as const;
export const COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;
