// `npm run stripe:event -- <type> [--user <email>] [--tokens N] [--plan pro|business] [--subscription sub_…]`:
// sends a correctly signed Stripe test event to the running service (PUBLIC_BASE_URL), the way `stripe trigger`
// does, so a developer can buy tokens or start, renew, change and cancel a subscription locally. Development only:
// the service must run against stripe-mock (npm start without STRIPE_SECRET_KEY).
// The service grants only for Checkout Sessions it created (recorded at checkout) and reads a pack's line items from
// Stripe, so a checkout event is about a real session: the script creates it at the local checkout (STRIPE_API_URL,
// else npm start's http://127.0.0.1:12110; --stripe-api <url> when npm start took another port), records it for the
// user as the service's checkout does, then sends the completed event.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createSql, type Sql } from '../db/client';
import { currentSubscription, recordCheckoutSession } from '../db/billing';
import { loadConfig, type Config } from '../lib/config';
import { createStripeClient } from '../lib/payments/stripe';
import { checkoutSession, paidInvoice, postEvent, signedEvent, subscription } from './stand-ins/stripe-events';

const TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;

const PLANS = ['pro', 'business'] as const;
type PaidPlan = (typeof PLANS)[number];

/** How long a subscription start waits for each of its events to be applied before sending the next. */
const APPLY_WAIT_MS = 60_000;

/** npm start's local checkout (scripts/start.ts STRIPE_CHECKOUT_PORT) and stripe-mock's key. */
const LOCAL_CHECKOUT = 'http://127.0.0.1:12110';
const LOCAL_SECRET_KEY = 'sk_test_123';

const USAGE = `usage: npm run stripe:event -- <type> [--user <email>] [--tokens N] [--plan pro|business] [--subscription <sub id>] [--stripe-api <url>]
types: ${TYPES.join(', ')}
  checkout.session.completed with --tokens N buys the token pack of N tokens (one of STRIPE_TOKEN_PACKS); without it,
  starts a subscription (--plan, default pro). The session is created at the local checkout (--stripe-api, default
  STRIPE_API_URL or ${LOCAL_CHECKOUT}) and recorded for the user, as the service's own checkout does.
  invoice.paid renews the user's subscription; customer.subscription.updated changes its plan (--plan);
  customer.subscription.deleted cancels it. Without --plan, these keep the subscription's current plan.
  --user defaults to the most recently created account.`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      tokens: { type: 'string' },
      plan: { type: 'string' },
      subscription: { type: 'string' },
      'stripe-api': { type: 'string' },
    },
  });
  const type = positionals[0] as (typeof TYPES)[number] | undefined;
  if (!type || !TYPES.includes(type)) throw new Error(USAGE);
  if (values.plan !== undefined && !PLANS.includes(values.plan as PaidPlan))
    throw new Error('--plan must be pro or business');
  const tokens = values.tokens === undefined ? undefined : Number(values.tokens);
  if (tokens !== undefined && (!Number.isInteger(tokens) || tokens < 1))
    throw new Error('--tokens must be a positive integer');

  const config = loadConfig();
  const secret = config.payments.webhookSecret;
  if (!secret) throw new Error('STRIPE_WEBHOOK_SECRET is not set');
  const sql = createSql(
    config.databaseUrl ?? `postgres://postgres:mockups-local@127.0.0.1:${config.embeddedPgPort}/mockups`,
    { max: 1 },
  );
  const url = `${config.publicBaseUrl}/api/payments/webhook`;
  try {
    const [user] = values.user
      ? await sql<
          { id: string; email: string }[]
        >`select id, email from users where email = ${values.user.toLowerCase()}`
      : await sql<{ id: string; email: string }[]>`select id, email from users order by created_at desc limit 1`;
    if (!user) throw new Error(values.user ? `no account with email ${values.user}` : 'no account yet: sign up first');
    const current = await currentSubscription(sql, user.id);
    const subId = values.subscription ?? current?.stripeSubscriptionId;
    const needSub = () => {
      if (!subId) throw new Error(`${user.email} has no subscription: send checkout.session.completed first`);
      return subId;
    };
    // The plan named, else the subscription's current one (a renewal or an update never changes it silently).
    const plan = (values.plan ?? current?.planId ?? 'pro') as PaidPlan;
    if (!PLANS.includes(plan)) throw new Error(`${user.email} is on ${plan}: name the plan with --plan pro|business`);
    const price = config.payments.planPrices[plan];

    const send = async (t: string, object: unknown, opts: { created?: number } = {}) => {
      const event = signedEvent(secret, t, object, opts);
      const res = await postEvent(url, event);
      process.stdout.write(`${t} ${event.id} for ${user.email} → ${url}: ${res.status} ${await res.text()}\n`);
      if (!res.ok) throw new Error(`the service answered ${res.status}`);
      return event.id;
    };

    const session = (mode: 'payment' | 'subscription', priceId: string) =>
      createSession(sql, config, values['stripe-api'], { userId: user.id, mode, priceId });
    if (type === 'checkout.session.completed' && !tokens) {
      await startSubscription(sql, send, {
        userId: user.id,
        plan,
        price,
        subscriptionId: values.subscription,
        sessionId: await session('subscription', price),
      });
      return;
    }
    const pack = tokens ? config.payments.tokenPacks.find((p) => p.tokens === tokens) : undefined;
    if (tokens && !pack)
      throw new Error(
        `--tokens must be a pack's tokens: ${config.payments.tokenPacks.map((p) => p.tokens).join(', ')}`,
      );
    const object =
      type === 'checkout.session.completed' || type === 'checkout.session.async_payment_succeeded'
        ? pack
          ? checkoutSession({
              userId: user.id,
              mode: 'payment',
              tokens: pack.tokens,
              id: await session('payment', pack.priceId),
              amountTotal: Math.round(pack.priceUsd * 100),
            })
          : checkoutSession({ userId: user.id, mode: 'subscription', id: await session('subscription', price) })
        : type === 'invoice.paid'
          ? paidInvoice({ userId: user.id, subscription: needSub(), price })
          : subscription({
              userId: user.id,
              id: needSub(),
              price,
              ...(type === 'customer.subscription.deleted' ? { status: 'canceled' } : {}),
            });
    await send(type, object);
  } finally {
    await sql.end();
  }
}

/**
 * A Checkout Session created at the local checkout (a stand-in in front of stripe-mock: it keeps the session, so the
 * service reads its line items back) and recorded for the user, as `POST /api/payments/checkout` does.
 */
async function createSession(
  sql: Sql,
  config: Config,
  apiUrl: string | undefined,
  o: { userId: string; mode: 'payment' | 'subscription'; priceId: string },
): Promise<string> {
  const url = apiUrl ?? config.payments.apiUrl ?? LOCAL_CHECKOUT;
  const stripe = createStripeClient({
    ...config.payments,
    secretKey: config.payments.secretKey ?? LOCAL_SECRET_KEY,
    apiUrl: url,
  });
  let id: string;
  try {
    const s = await stripe.checkout.sessions.create({
      mode: o.mode,
      client_reference_id: o.userId,
      metadata: { userId: o.userId },
      line_items: [{ price: o.priceId, quantity: 1 }],
      success_url: `${config.publicBaseUrl}/billing?checkout=success`,
      cancel_url: `${config.publicBaseUrl}/billing?checkout=canceled`,
      ...(o.mode === 'subscription' ? { subscription_data: { metadata: { userId: o.userId } } } : {}),
    });
    id = s.id;
  } catch (err) {
    throw new Error(
      `could not create a checkout session at ${url} (${(err as Error).message}): is npm start running? ` +
        'name its local checkout with --stripe-api <url>',
      { cause: err },
    );
  }
  await recordCheckoutSession(sql, { id, ...o });
  process.stdout.write(`checkout session ${id} created at ${url} and recorded\n`);
  return id;
}

/**
 * A new subscription, as Stripe reports one: the first invoice paid (granting the plan's tokens), then the checkout.
 * The service reads the subscription from Stripe while applying the checkout, and stripe-mock answers every read
 * with the same fixture price (Pro's default), so a `customer.subscription.updated` naming the chosen plan follows.
 * Each event is sent once the previous one is applied, so they apply in this order.
 */
async function startSubscription(
  sql: Sql,
  send: (type: string, object: unknown, opts?: { created?: number }) => Promise<string>,
  o: { userId: string; plan: PaidPlan; price: string; subscriptionId: string | undefined; sessionId: string },
): Promise<void> {
  const sub = o.subscriptionId ?? `sub_test_${randomBytes(9).toString('hex')}`;
  const firstInvoice = `in_test_${randomBytes(9).toString('hex')}`;
  const now = Math.floor(Date.now() / 1000);
  await applied(
    sql,
    await send(
      'invoice.paid',
      paidInvoice({
        userId: o.userId,
        subscription: sub,
        price: o.price,
        id: firstInvoice,
        billingReason: 'subscription_create',
      }),
      { created: now - 1 },
    ),
  );
  await applied(
    sql,
    await send(
      'checkout.session.completed',
      checkoutSession({
        userId: o.userId,
        mode: 'subscription',
        subscription: sub,
        invoice: firstInvoice,
        id: o.sessionId,
      }),
    ),
  );
  await applied(
    sql,
    await send('customer.subscription.updated', subscription({ userId: o.userId, id: sub, price: o.price })),
  );
}

/** Waits until the service has applied (or refused) a stored event; the worker must be running. */
async function applied(sql: Sql, eventId: string): Promise<void> {
  const until = Date.now() + APPLY_WAIT_MS;
  for (;;) {
    const [row] = await sql<{ status: string; result: unknown }[]>`
      select status, result from stripe_events where id = ${eventId}`;
    if (row && row.status !== 'received') {
      process.stdout.write(`  ${eventId}: ${row.status} ${JSON.stringify(row.result)}\n`);
      return;
    }
    if (Date.now() > until)
      throw new Error(`${eventId} was not applied within ${APPLY_WAIT_MS / 1000} s: is the worker running?`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

main().catch((err) => {
  process.stderr.write(`stripe:event: ${(err as Error).message}\n`);
  process.exit(1);
});
