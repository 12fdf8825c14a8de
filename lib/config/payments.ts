// Payments through Stripe (docs/payments.md): the key, the API's address (stripe-mock locally), the webhook signing
// secret, the plans' prices and the token packs.
import { z } from 'zod';
import { persistedFile, requiredWith, type EnvOf, type NodeEnv } from './parse';

export const PRICE_ID_RE = /^price_\w{1,200}$/;

export interface TokenPack {
  priceId: string;
  tokens: number;
  priceUsd: number;
}

/** `priceId:tokens:usd` separated by commas; a message saying what is wrong otherwise. */
export function parseTokenPacks(v: string): TokenPack[] | string {
  const packs: TokenPack[] = [];
  for (const part of v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(price_\w{1,200}):(\d{1,7}):(\d{1,6}(?:\.\d{1,2})?)$/.exec(part);
    if (!m) return `"${part}" is not priceId:tokens:usd (e.g. price_a:100:9)`;
    const pack = { priceId: m[1]!, tokens: Number(m[2]), priceUsd: Number(m[3]) };
    if (pack.tokens < 1) return `"${part}": tokens must be at least 1`;
    if (packs.some((p) => p.priceId === pack.priceId)) return `price ${pack.priceId} is listed twice`;
    packs.push(pack);
  }
  return packs;
}

export const paymentsEnv = {
  // Payments through Stripe. Unset STRIPE_SECRET_KEY: `npm start` runs stripe-mock and points the client
  // at it; elsewhere the payment routes other than the plan list answer 503.
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_…, sk_live_… or rk_…)')
    .optional(),
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, 'must be an endpoint signing secret (whsec_…)')
    .optional(),
  // Development defaults: stripe-mock answers every subscription with the price price_1PgafmB7WZ01zgkW6dKueIc5, so
  // Pro defaults to it and a subscription started against stripe-mock resolves to a plan.
  STRIPE_PRICE_PRO: z
    .string()
    .regex(PRICE_ID_RE, 'must be a Stripe price id')
    .default('price_1PgafmB7WZ01zgkW6dKueIc5'),
  STRIPE_PRICE_BUSINESS: z.string().regex(PRICE_ID_RE, 'must be a Stripe price id').default('price_business_monthly'),
  STRIPE_TOKEN_PACKS: z
    .string()
    .transform((v, ctx) => {
      const packs = parseTokenPacks(v);
      if (typeof packs === 'string') {
        ctx.addIssue({ code: 'custom', message: packs });
        return z.NEVER;
      }
      return packs;
    })
    .default(parseTokenPacks('price_pack_100:100:9,price_pack_500:500:39') as TokenPack[]),
};

export function paymentsConfig(e: EnvOf<typeof paymentsEnv> & { NODE_ENV: NodeEnv }, dataDir: string) {
  return {
    payments: {
      /** Unset: payments are not configured (npm start runs stripe-mock and sets it). */
      secretKey: e.STRIPE_SECRET_KEY,
      /** Base URL of the Stripe API (stripe-mock locally); unset: Stripe's own. */
      apiUrl: e.STRIPE_API_URL?.replace(/\/+$/, ''),
      /** Endpoint signing secret; outside production generated once into DATA_DIR when unset. */
      webhookSecret:
        e.STRIPE_WEBHOOK_SECRET ??
        (e.NODE_ENV === 'production'
          ? requiredWith(e.STRIPE_SECRET_KEY, 'STRIPE_WEBHOOK_SECRET', 'STRIPE_SECRET_KEY is set')
          : `whsec_${persistedFile(dataDir, e.NODE_ENV, 'stripe-webhook-secret', 'STRIPE_WEBHOOK_SECRET')}`),
      planPrices: { pro: e.STRIPE_PRICE_PRO, business: e.STRIPE_PRICE_BUSINESS },
      tokenPacks: e.STRIPE_TOKEN_PACKS,
    },
  };
}
