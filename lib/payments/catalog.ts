// Which Stripe price is which plan or token pack (prices come from configuration; plans from the plans table).
import type { Config, TokenPack } from '../config';

export type PaidPlanId = 'pro' | 'business';

export interface PlanRow {
  id: string;
  name: string;
  tokensPerMonth: number | null;
  priceUsd: number | null;
  rollover: boolean;
}

export interface PriceCatalog {
  planPrices: Config['payments']['planPrices'];
  tokenPacks: TokenPack[];
}

export function planForPrice(c: PriceCatalog, priceId: string | null | undefined): PaidPlanId | undefined {
  if (!priceId) return undefined;
  if (priceId === c.planPrices.pro) return 'pro';
  if (priceId === c.planPrices.business) return 'business';
  return undefined;
}

export function priceForPlan(c: PriceCatalog, planId: string): string | null {
  return planId === 'pro' || planId === 'business' ? c.planPrices[planId] : null;
}

export function packForPrice(c: PriceCatalog, priceId: string): TokenPack | undefined {
  return c.tokenPacks.find((p) => p.priceId === priceId);
}
