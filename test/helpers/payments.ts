// A token pack's completed checkout for tests that deliver hand-made Stripe events: the service grants only for
// Checkout Sessions it created, so the session is created through its own `POST /api/payments/checkout` (at the run's
// local checkout, which keeps its line items for the service to read back), then reported as Stripe reports it.
import type { TokenPack } from '../../lib/config';
import { checkoutSession } from '../../scripts/stand-ins/stripe-events';
import { http } from './http';

export async function packCheckoutSession(
  baseUrl: string,
  acct: { cookie: string; userId: string },
  pack: TokenPack,
  o: { paid?: boolean; paymentIntent?: string } = {},
) {
  const r = await http(baseUrl, 'POST', '/api/payments/checkout', {
    cookie: acct.cookie,
    json: { priceId: pack.priceId, mode: 'payment' },
  });
  if (r.status !== 200) throw new Error(`checkout answered ${r.status}: ${r.text}`);
  return checkoutSession({
    userId: acct.userId,
    mode: 'payment',
    id: r.body.sessionId as string,
    tokens: pack.tokens,
    amountTotal: Math.round(pack.priceUsd * 100),
    ...o,
  });
}
