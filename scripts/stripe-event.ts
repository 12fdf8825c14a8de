// `npm run stripe:event -- <type> [--user <email>] [--tokens N] [--plan pro|business] [--subscription sub_…]`:
// sends a correctly signed Stripe test event to the running service (PUBLIC_BASE_URL), the way `stripe trigger`
// does, so a developer can buy tokens or start, renew, change and cancel a subscription locally. Development only.
import { parseArgs } from 'node:util';
import { createSql } from '../db/client';
import { loadConfig } from '../lib/config';
import { checkoutSession, paidInvoice, postEvent, signedEvent, subscription } from './stand-ins/stripe-events';

const TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;

const USAGE = `usage: npm run stripe:event -- <type> [--user <email>] [--tokens N] [--plan pro|business] [--subscription <sub id>]
types: ${TYPES.join(', ')}
  checkout.session.completed with --tokens N buys a token pack; without it, starts a subscription (--plan, default pro)
  invoice.paid renews the user's subscription; customer.subscription.updated changes its plan (--plan);
  customer.subscription.deleted cancels it. --user defaults to the most recently created account.`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      tokens: { type: 'string' },
      plan: { type: 'string', default: 'pro' },
      subscription: { type: 'string' },
    },
  });
  const type = positionals[0] as (typeof TYPES)[number] | undefined;
  if (!type || !TYPES.includes(type)) throw new Error(USAGE);
  if (values.plan !== 'pro' && values.plan !== 'business') throw new Error('--plan must be pro or business');
  const tokens = values.tokens === undefined ? undefined : Number(values.tokens);
  if (tokens !== undefined && (!Number.isInteger(tokens) || tokens < 1))
    throw new Error('--tokens must be a positive integer');

  const config = loadConfig();
  const secret = config.payments.webhookSecret;
  if (!secret) throw new Error('STRIPE_WEBHOOK_SECRET is not set');
  const price = config.payments.planPrices[values.plan];
  const sql = createSql(
    config.databaseUrl ?? `postgres://postgres:mockups-local@127.0.0.1:${config.embeddedPgPort}/mockups`,
    { max: 1 },
  );
  try {
    const [user] = values.user
      ? await sql<
          { id: string; email: string }[]
        >`select id, email from users where email = ${values.user.toLowerCase()}`
      : await sql<{ id: string; email: string }[]>`select id, email from users order by created_at desc limit 1`;
    if (!user) throw new Error(values.user ? `no account with email ${values.user}` : 'no account yet: sign up first');
    const [current] = await sql<{ id: string }[]>`select stripe_subscription_id as id from subscriptions
      where user_id = ${user.id} order by updated_at desc limit 1`;
    const subId = values.subscription ?? current?.id;
    const needSub = () => {
      if (!subId) throw new Error(`${user.email} has no subscription: send checkout.session.completed first`);
      return subId;
    };
    const object =
      type === 'checkout.session.completed' || type === 'checkout.session.async_payment_succeeded'
        ? tokens
          ? checkoutSession({ userId: user.id, mode: 'payment', tokens })
          : checkoutSession({ userId: user.id, mode: 'subscription' })
        : type === 'invoice.paid'
          ? paidInvoice({ userId: user.id, subscription: needSub(), price })
          : subscription({
              userId: user.id,
              id: needSub(),
              price,
              ...(type === 'customer.subscription.deleted' ? { status: 'canceled' } : {}),
            });
    const event = signedEvent(secret, type, object);
    const url = `${config.publicBaseUrl}/api/payments/webhook`;
    const res = await postEvent(url, event);
    process.stdout.write(`${type} ${event.id} for ${user.email} → ${url}: ${res.status} ${await res.text()}\n`);
    if (!res.ok) process.exitCode = 1;
  } finally {
    await sql.end();
  }
}

main().catch((err) => {
  process.stderr.write(`stripe:event: ${(err as Error).message}\n`);
  process.exit(1);
});
