// Reading Shopify webhook payloads (REST JSON format, as Shopify sends webhooks): orders and the compliance topics.
// Pure: validated with zod, anything malformed is reported instead of half-recorded.
//
// Shopify ids are 64-bit: the body is parsed with parseJsonKeepingBigIntegers (lib/shopify/json.ts), which hands
// an id above 2^53 over as the string of its exact digits; a JS number id is taken only when it is a safe integer
// (exact), so no id is ever rounded. Ids leave this module as text (gid://shopify/<Type>/<digits> or the digits).
import { z } from 'zod';

/** A Shopify numeric id: a safe-integer number, or its exact digits as a string (a bigger one, kept by the parse). */
const id = z
  .union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,20}$/)])
  .transform(String);
const gid = (type: string) => z.string().regex(new RegExp(`^gid://shopify/${type}/\\d{1,20}$`));
const money = z.union([z.string(), z.number()]).transform(String);

const orderSchema = z.object({
  id,
  admin_graphql_api_id: gid('Order').optional(),
  name: z.string().min(1).max(100),
  email: z.string().max(320).nullish(),
  currency: z.string().min(3).max(3),
  total_price: money,
  customer: z
    .object({
      id: id.nullish(),
      first_name: z.string().nullish(),
      last_name: z.string().nullish(),
      email: z.string().nullish(),
    })
    .nullish(),
  shipping_address: z.object({ name: z.string().max(255).nullish() }).nullish(),
  line_items: z
    .array(
      z.object({
        id: id.nullish(),
        title: z.string(),
        variant_title: z.string().nullish(),
        quantity: z.number().int().min(0),
        price: money,
        product_id: id.nullish(),
      }),
    )
    .max(500),
});

export interface ParsedOrder {
  /** gid://shopify/Order/<id>: what the Admin GraphQL API takes. */
  shopifyOrderId: string;
  name: string;
  customerId: string | null;
  customerName: string | null;
  customerEmail: string | null;
  /** the shipping address's name (the job sheet's ship-to), when the order has one */
  shipToName: string | null;
  total: string;
  currency: string;
  lineItems: {
    /** Shopify's line item id (the production's idempotency key per line); null in payloads without one */
    lineItemId: string | null;
    title: string;
    variantTitle: string | null;
    quantity: number;
    price: string;
    shopifyProductId: string | null;
  }[];
}

export function parseOrder(body: unknown): { ok: true; order: ParsedOrder } | { ok: false; error: string } {
  const r = orderSchema.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { ok: false, error: `order payload: ${i.path.join('.') || '(root)'}: ${i.message}` };
  }
  const o = r.data;
  const name = [o.customer?.first_name, o.customer?.last_name].filter(Boolean).join(' ');
  return {
    ok: true,
    order: {
      shopifyOrderId: o.admin_graphql_api_id ?? `gid://shopify/Order/${o.id}`,
      name: o.name,
      customerId: o.customer?.id ?? null,
      customerName: name || null,
      customerEmail: o.customer?.email ?? o.email ?? null,
      shipToName: o.shipping_address?.name ?? (name || null),
      total: o.total_price,
      currency: o.currency.toUpperCase(),
      lineItems: o.line_items.map((li) => ({
        lineItemId: li.id ?? null,
        title: li.title,
        variantTitle: li.variant_title ?? null,
        quantity: li.quantity,
        price: li.price,
        shopifyProductId: li.product_id ? `gid://shopify/Product/${li.product_id}` : null,
      })),
    },
  };
}

const complianceSchema = z.object({
  shop_domain: z.string().optional(),
  customer: z.object({ id: id.nullish(), email: z.string().nullish() }).optional(),
  orders_requested: z.array(id).optional(),
  orders_to_redact: z.array(id).optional(),
});

export interface ComplianceRequest {
  customer: { id?: string; email?: string };
  /** gid://shopify/Order/<id> */
  orderIds: string[];
}

export function parseCompliance(
  body: unknown,
): { ok: true; request: ComplianceRequest } | { ok: false; error: string } {
  const r = complianceSchema.safeParse(body);
  if (!r.success) return { ok: false, error: `compliance payload: ${r.error.issues[0]!.message}` };
  const ids = r.data.orders_requested ?? r.data.orders_to_redact ?? [];
  return {
    ok: true,
    request: {
      customer: { id: r.data.customer?.id ?? undefined, email: r.data.customer?.email ?? undefined },
      orderIds: ids.map((i) => `gid://shopify/Order/${i}`),
    },
  };
}
