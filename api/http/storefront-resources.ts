// Response shapes of the storefront (Part B, api/services/storefront/): connections, products and their unit
// economics, orders with their production, customers' data requests.
import { z } from 'zod';
import { productionResource } from './print-schemas';
import { timestamp } from './schemas';

const url = z.url();

// ------------------------------------------------------------------ storefront

const storefrontStatus = <T extends [string, ...string[]]>(...values: T) => z.enum(values);

export const connectionResource = z
  .object({
    id: z.string().meta({ description: 'shc_<…>' }),
    shopDomain: z.string(),
    shopName: z.string().nullable(),
    status: storefrontStatus('active', 'disconnected'),
    installedAt: timestamp.nullable(),
    adminUrl: z.string().meta({
      description:
        'the store\'s admin for the merchant\'s browser ("Open store"): https://<shop>/admin, or the local ' +
        'development shop’s page of the store (SHOPIFY_DEV_SHOP_URL)',
    }),
  })
  .meta({ id: 'StoreConnection' });

const usdAmount = (description: string) => z.number().meta({ description });

/** Unit economics (lib/storefront/economics.ts): USD per unit, rounded to the cent. */
export const unitCosts = z
  .object({
    print: usdAmount('printing the design: 30'),
    blank: usdAmount("the blank garment: the garment's basePrice, or 15 when the mockup is not on a catalogue garment"),
    fulfillment: usdAmount('fulfilment: 5'),
    total: usdAmount('print + blank + fulfillment'),
  })
  .meta({
    id: 'UnitCosts',
    description:
      'Estimated cost of one front-printed item, USD per unit. Computed in whole cents (inputs rounded to the cent, half away from zero)',
  });
const margin = usdAmount('price − costs.total, USD per unit, exact in cents (negative below cost)');

export const productResource = z
  .object({
    id: z.string().meta({ description: 'pub_<…>' }),
    status: storefrontStatus('publishing', 'published', 'failed'),
    source: storefrontStatus('generation', 'chat').meta({
      description:
        'where the media came from: a generation (generationId) or a design-chat mockup (chatJobId, mockupIndex)',
    }),
    generationId: z.string().nullable().meta({ description: 'the generation published; null for a chat mockup' }),
    chatJobId: z.string().nullable().meta({ description: 'the design-chat job whose mockup was published; else null' }),
    mockupIndex: z
      .number()
      .int()
      .nullable()
      .meta({ description: "the mockup's index in that job's `mockups`; null for a generation" }),
    garmentId: z
      .string()
      .nullable()
      .meta({ description: 'the catalogue garment the mockup is on; null for a chat mockup on a foreign blank' }),
    connectionId: z.string(),
    title: z.string(),
    price: z.number(),
    sizes: z.array(z.string()),
    costs: unitCosts,
    margin,
    productId: z.string().nullable(),
    handle: z.string().nullable(),
    adminUrl: z.string().nullable(),
    error: z.string().nullable(),
    createdAt: timestamp,
    publishedAt: timestamp.nullable(),
  })
  .meta({ id: 'PublishedProduct' });

export const costEstimate = z
  .object({
    source: storefrontStatus('generation', 'chat'),
    generationId: z.string().nullable(),
    chatJobId: z.string().nullable(),
    mockupIndex: z.number().int().nullable(),
    imageUrl: z.string().meta({ description: 'the mockup that would be the product image' }),
    garmentId: z.string().nullable(),
    garmentName: z.string().nullable(),
    sizes: z
      .array(z.string())
      .meta({ description: "the garment's sizes (what publishing defaults to); [] without one" }),
    price: usdAmount('the price the margin is worked at: ?price, default the suggested 59.99'),
    suggestedPrice: usdAmount('the suggested retail starting price, 59.99'),
    costs: unitCosts,
    margin,
  })
  .meta({ id: 'StorefrontCostEstimate' });

export const orderResource = z
  .object({
    id: z.string().meta({ description: 'ord_<…>' }),
    shopDomain: z.string(),
    shopifyOrderId: z.string().meta({
      description: "the shop's order: gid://shopify/Order/<id>, the 64-bit id exactly as Shopify sent it",
    }),
    name: z.string(),
    status: storefrontStatus('open', 'paid', 'fulfilled'),
    customer: z.object({ name: z.string().nullable(), email: z.string().nullable() }),
    lineItems: z.array(
      z.object({
        lineItemId: z.string().nullable().optional().meta({ description: "Shopify's line item id" }),
        title: z.string(),
        variantTitle: z.string().nullable(),
        quantity: z.number().int(),
        price: z.string(),
        shopifyProductId: z.string().nullable(),
        publishedProductId: z.string().nullable(),
      }),
    ),
    total: z.string(),
    currency: z.string(),
    tracking: z.object({ number: z.string(), company: z.string(), url: z.string().optional() }).nullable(),
    createdAt: timestamp,
    production: productionResource.nullable(),
  })
  .meta({ id: 'StoreOrder' });

export const installStarted = z
  .object({ url: url.meta({ description: "the shop's authorize page: send the merchant's browser there" }) })
  .meta({ id: 'StorefrontInstall' });
export const connectionList = z.object({ connections: z.array(connectionResource) }).meta({ id: 'StoreConnections' });
export const disconnected = z
  .object({
    id: z.string(),
    status: z.literal('disconnected'),
    webhooks: z
      .object({
        removed: z.array(z.string()).meta({ description: 'topics whose subscription was deleted at Shopify' }),
        notRemoved: z.array(z.string()).meta({
          description:
            'topics whose subscription Shopify could not be asked to delete now (unreachable, refused): kept on record ' +
            'and deleted at the next disconnect of the shop; deliveries to them are stored and ignored meanwhile',
        }),
        keptForOtherConnections: z.array(z.string()).meta({
          description: "topics left in place because another user's connection to the shop is still active",
        }),
      })
      .meta({ description: 'the webhook subscriptions registered at connect, and what became of them' }),
  })
  .meta({ id: 'StoreDisconnected' });
export const publishAnswer = z
  .union([
    z.object({
      id: z.string(),
      status: z.literal('published'),
      productId: z.string().nullable(),
      adminUrl: z.string().nullable(),
      price: z.number(),
      costs: unitCosts,
      margin,
    }),
    z.object({ id: z.string(), status: z.literal('publishing'), price: z.number(), costs: unitCosts, margin }),
  ])
  .meta({ id: 'PublishResult' });
export const productList = z.object({ products: z.array(productResource) }).meta({ id: 'PublishedProducts' });
export const orderList = z.object({ orders: z.array(orderResource) }).meta({ id: 'StoreOrders' });
export const fulfillmentAnswer = z
  .union([orderResource, z.object({ id: z.string(), status: z.literal('fulfilling') })])
  .meta({ id: 'FulfillmentResult' });
export const webhookAck = z.object({ ok: z.literal(true) }).meta({ id: 'WebhookAck' });
export const dataRequestResource = z
  .object({
    id: z.string().meta({ description: 'the X-Shopify-Webhook-Id of the customers/data_request' }),
    shopDomain: z.string(),
    customer: z.object({ id: z.string().nullable(), email: z.string().nullable() }),
    ordersRequested: z.array(z.string()),
    orders: z.array(
      z.object({
        order: z.string(),
        name: z.string(),
        customer: z.object({ id: z.string().nullable(), name: z.string().nullable(), email: z.string().nullable() }),
        lineItems: orderResource.shape.lineItems,
        total: z.string(),
        currency: z.string(),
        createdAt: timestamp,
      }),
    ),
    receivedAt: timestamp,
    processedAt: timestamp.nullable(),
  })
  .meta({ id: 'CustomerDataRequest' });
export const dataRequestList = z
  .object({ dataRequests: z.array(dataRequestResource) })
  .meta({ id: 'CustomerDataRequests' });
