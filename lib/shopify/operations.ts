// The Admin GraphQL operations the storefront uses (API version 2026-10), with the shapes of their answers.

export const SHOP_NAME_QUERY = `#graphql
  query ShopName { shop { name } }`;

export interface ShopNameData {
  shop: { name: string };
}

export const WEBHOOK_SUBSCRIPTION_CREATE = `#graphql
  mutation WebhookSubscriptionCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
    webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
      webhookSubscription { id topic }
      userErrors { field message }
    }
  }`;

export interface UserError {
  field?: string[] | null;
  message: string;
}

export interface WebhookSubscriptionCreateData {
  webhookSubscriptionCreate: { webhookSubscription: { id: string; topic: string } | null; userErrors: UserError[] };
}

export const WEBHOOK_SUBSCRIPTION_DELETE = `#graphql
  mutation WebhookSubscriptionDelete($id: ID!) {
    webhookSubscriptionDelete(id: $id) {
      deletedWebhookSubscriptionId
      userErrors { field message }
    }
  }`;

export interface WebhookSubscriptionDeleteData {
  webhookSubscriptionDelete: { deletedWebhookSubscriptionId: string | null; userErrors: UserError[] };
}

/** Shopify's answer to deleting a subscription it no longer has (deleted before, or dropped with an uninstall). */
export const SUBSCRIPTION_GONE = /does not exist|not found/i;

/** orders/create → ORDERS_CREATE */
export const topicEnum = (topic: string) => topic.toUpperCase().replace('/', '_');

export const PRODUCT_SET = `#graphql
  mutation ProductSet($input: ProductSetInput!, $identifier: ProductSetIdentifiers, $synchronous: Boolean!) {
    productSet(input: $input, identifier: $identifier, synchronous: $synchronous) {
      product { id handle }
      userErrors { field message code }
    }
  }`;

export interface ProductSetData {
  productSet: { product: { id: string; handle: string } | null; userErrors: UserError[] };
}

export const ORDER_FULFILLMENT_ORDERS = `#graphql
  query OrderFulfillmentOrders($id: ID!) {
    order(id: $id) {
      id
      fulfillmentOrders(first: 20) { nodes { id status } }
    }
  }`;

export interface OrderFulfillmentOrdersData {
  order: { id: string; fulfillmentOrders: { nodes: { id: string; status: string }[] } } | null;
}

export const FULFILLMENT_CREATE = `#graphql
  mutation FulfillmentCreate($fulfillment: FulfillmentInput!, $message: String) {
    fulfillmentCreate(fulfillment: $fulfillment, message: $message) {
      fulfillment { id status }
      userErrors { field message }
    }
  }`;

export interface FulfillmentCreateData {
  fulfillmentCreate: { fulfillment: { id: string; status: string } | null; userErrors: UserError[] };
}

/** Fulfillment orders that can still be fulfilled (the others are closed, cancelled or already fulfilled). */
export const FULFILLABLE_STATUSES = ['OPEN', 'IN_PROGRESS', 'SCHEDULED'];
