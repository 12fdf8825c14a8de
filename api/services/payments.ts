// Payment use cases: plans and token packs, Stripe Checkout and the billing portal, and the Stripe event
// receiver. An event is verified, stored, answered, and only then handed to its workflow (stripe-event-<id>); the
// inbound sweep starts that workflow if this process could not.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { currentSubscription, customerOf, listPlans, recordCheckoutSession, storeCustomer } from '../../db/billing';
import { storeStripeEvent } from '../../db/payments';
import { startInboundWorkflow } from '../../lib/inbound';
import { packForPrice, planForPrice, priceForPlan } from '../../lib/payments/catalog';
import { MAX_STRIPE_SECONDS } from '../../lib/payments/event-values';
import { checkoutNeeds } from '../../lib/payments/event-reads';
import { stripeEventStart } from '../../lib/payments/start';
import { stripeEvent } from '../../workflows';
import { createStripeGateway, type StripeGateway } from '../../lib/payments/gateway';
import { verifyStripeEvent, type Stripe } from '../../lib/payments/stripe';
import type { AppDeps } from '../context';
import type { CheckoutBody } from '../http/app-schemas';
import { ApiError, badRequest, conflict } from '../errors';

const gateways = new WeakMap<AppDeps['config'], StripeGateway>();

const notConfigured = () => new ApiError(503, 'service_unavailable', 'Payments are not configured');

function stripe(deps: AppDeps): StripeGateway {
  if (!deps.config.payments.secretKey) throw notConfigured();
  let g = gateways.get(deps.config);
  if (!g) gateways.set(deps.config, (g = createStripeGateway(deps.config.payments)));
  return g;
}

/** Stripe could not be reached or refused a request we built: the client sees a 502 without Stripe's details. */
async function callStripe<T>(deps: AppDeps, what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    deps.log.error(`stripe: ${what} failed`, { error: (err as Error).message, type: (err as { type?: string }).type });
    throw new ApiError(502, 'service_unavailable', 'The payment provider did not answer; try again');
  }
}

export async function plans(deps: AppDeps) {
  const rows = await listPlans(deps.sql);
  return {
    plans: rows.map((p) => ({
      id: p.id,
      name: p.name,
      tokensPerMonth: p.tokensPerMonth,
      priceUsd: p.priceUsd,
      priceId: priceForPlan(deps.config.payments, p.id),
      rollover: p.rollover,
    })),
    tokenPacks: deps.config.payments.tokenPacks.map((p) => ({
      priceId: p.priceId,
      tokens: p.tokens,
      priceUsd: p.priceUsd,
    })),
  };
}

/** The user's Stripe customer: the stored one, or a new one (its create call keyed by the user, so never two). */
async function ensureCustomer(deps: AppDeps, user: { id: string; email: string }): Promise<string> {
  const stored = await customerOf(deps.sql, user.id);
  if (stored) return stored;
  const customer = await callStripe(deps, 'customers.create', () =>
    stripe(deps).createCustomer(
      { email: user.email, metadata: { userId: user.id } },
      { idempotencyKey: `customer-${user.id}` },
    ),
  );
  return storeCustomer(deps.sql, user.id, customer.id);
}

/** A redirect target must be on the app's own origin: no open redirect through our checkout. */
function ownUrl(deps: AppDeps, url: string | undefined, fallbackPath: string, field: string): string {
  const origin = new URL(deps.config.publicBaseUrl).origin;
  if (url === undefined) return `${deps.config.publicBaseUrl}${fallbackPath}`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badRequest(`${field} must be an absolute URL`);
  }
  if (u.origin !== origin) throw badRequest(`${field} must be on ${origin}`);
  return u.toString();
}

export async function checkout(
  deps: AppDeps,
  user: { id: string; email: string },
  body: CheckoutBody,
): Promise<{ url: string; sessionId: string }> {
  const catalog = deps.config.payments;
  const plan = planForPrice(catalog, body.priceId);
  const pack = packForPrice(catalog, body.priceId);
  if (body.mode === 'subscription' && !plan)
    throw badRequest(`priceId ${body.priceId} is not a plan price: mode "subscription" needs a plan`);
  if (body.mode === 'payment' && !pack)
    throw badRequest(`priceId ${body.priceId} is not a token pack price: mode "payment" needs a token pack`);
  const successUrl = ownUrl(deps, body.successUrl, '/billing?checkout=success', 'successUrl');
  const cancelUrl = ownUrl(deps, body.cancelUrl, '/billing?checkout=canceled', 'cancelUrl');
  if (body.mode === 'subscription') {
    const current = await currentSubscription(deps.sql, user.id);
    if (current && ['active', 'trialing', 'past_due'].includes(current.status))
      throw conflict('You already have a subscription: change or cancel it in the billing portal');
  }
  const customer = await ensureCustomer(deps, user);
  const metadata: Record<string, string> = { userId: user.id };
  if (pack) metadata.tokens = String(pack.tokens);
  const session = await callStripe(deps, 'checkout.sessions.create', () =>
    stripe(deps).createCheckoutSession(
      {
        mode: body.mode,
        customer,
        client_reference_id: user.id,
        metadata,
        line_items: [{ price: body.priceId, quantity: 1 }],
        success_url: successUrl,
        cancel_url: cancelUrl,
        ...(body.mode === 'subscription' ? { subscription_data: { metadata: { userId: user.id } } } : {}),
      },
      // One key per request: the library's own retries of this call cannot create a second session.
      { idempotencyKey: `checkout-${user.id}-${randomUUID()}` },
    ),
  );
  if (!session.url) throw new ApiError(502, 'service_unavailable', 'The payment provider returned no checkout page');
  // Recorded before the page is handed out: only sessions recorded here grant anything, and only to this account.
  await recordCheckoutSession(deps.sql, { id: session.id, userId: user.id, mode: body.mode, priceId: body.priceId });
  return { url: session.url, sessionId: session.id };
}

export async function portal(deps: AppDeps, user: { id: string; email: string }): Promise<{ url: string }> {
  const customer = await ensureCustomer(deps, user);
  const session = await callStripe(deps, 'billingPortal.sessions.create', () =>
    stripe(deps).createPortalSession(
      { customer, return_url: `${deps.config.publicBaseUrl}/billing?portal=returned` },
      { idempotencyKey: `portal-${user.id}-${randomUUID()}` },
    ),
  );
  return { url: session.url };
}

export async function subscription(deps: AppDeps, userId: string) {
  const s = await currentSubscription(deps.sql, userId);
  if (!s) return { subscription: null };
  const [plan] = (await listPlans(deps.sql)).filter((p) => p.id === s.planId);
  return {
    subscription: {
      id: s.stripeSubscriptionId,
      plan: { id: s.planId, name: plan?.name ?? s.planId },
      status: s.status,
      currentPeriodStart: s.currentPeriodStart?.toISOString() ?? null,
      currentPeriodEnd: s.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    },
  };
}

const storedEvent = z.object({
  id: z.string().regex(/^evt_\w{1,200}$/, 'id must be a Stripe event id'),
  type: z.string().regex(/^[a-z_.]{1,100}$/),
  created: z.number().int().positive().max(MAX_STRIPE_SECONDS),
  livemode: z.boolean(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

/**
 * POST /api/payments/webhook: verifies the signature over the raw bytes (Stripe's library, 300 s tolerance), stores
 * the event (unique by id) and returns the step that starts its workflow, which the route runs after answering.
 */
export async function receiveStripeEvent(deps: AppDeps, header: string | string[] | undefined, raw: Buffer) {
  if (typeof header !== 'string' || header.length === 0) throw badRequest('Missing Stripe-Signature header');
  if (header.length > 2000) throw badRequest('Invalid Stripe-Signature header');
  const secret = deps.config.payments.webhookSecret;
  if (!secret) throw notConfigured();
  let event: Stripe.Event;
  try {
    event = verifyStripeEvent(raw, header, secret);
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'StripeSignatureVerificationError') throw badRequest('Invalid signature');
    throw badRequest('Invalid event body');
  }
  const e = storedEvent.safeParse(event);
  if (!e.success) throw badRequest('Invalid event body');
  const stored = await storeStripeEvent(deps.sql, {
    id: e.data.id,
    type: e.data.type,
    created: e.data.created,
    livemode: e.data.livemode,
    payload: event,
  });
  const dispatch =
    stored.inserted || stored.status === 'received'
      ? async () => {
          await startInboundWorkflow(
            deps.temporal,
            deps.config.temporal.taskQueue,
            // what to read from Stripe is known now: the workflow reads it before its one apply
            stripeEventStart(stripeEvent, e.data.id, stored.accountId, checkoutNeeds(event, stored.session)),
          );
        }
      : undefined;
  return { eventId: e.data.id, dispatch };
}
