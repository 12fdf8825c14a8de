// OpenAPI entries of payments (Part B, api/routes/payments.ts; docs/payments.md).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as B from '../http/app-schemas';
import * as R from '../http/resources';
import { json, partBErrors, PUBLIC, routePath, SESSION } from './common';

export function registerPaymentPaths(registry: OpenAPIRegistry): void {
  const path = routePath(registry);
  // ---------------------------------------------------------------- payments (Part B)
  path({
    method: 'get',
    path: '/api/payments/plans',
    tags: ['Payments'],
    summary: 'Plans and token packs with their Stripe prices',
    security: PUBLIC,
    responses: { 200: json(R.plansList, 'the plans and packs') },
  });
  path({
    method: 'post',
    path: '/api/payments/checkout',
    tags: ['Payments'],
    summary: 'Start a Stripe Checkout for a plan (subscription) or a token pack (payment)',
    security: SESSION,
    request: { body: { required: true, content: { 'application/json': { schema: B.checkoutBody } } } },
    responses: { 200: json(R.checkoutStarted, 'the hosted checkout page'), ...partBErrors(400, 401, 409, 502, 503) },
  });
  path({
    method: 'post',
    path: '/api/payments/portal',
    tags: ['Payments'],
    summary: "Open Stripe's billing portal (plan change, card, invoices, cancel)",
    security: SESSION,
    description: 'The portal returns the browser to `<PUBLIC_BASE_URL>/billing?portal=returned` (the Billing page).',
    responses: { 200: json(R.portalStarted, 'the portal page'), ...partBErrors(401, 502, 503) },
  });
  path({
    method: 'get',
    path: '/api/payments/subscription',
    tags: ['Payments'],
    summary: "The user's subscription",
    security: SESSION,
    responses: { 200: json(R.subscriptionAnswer, 'the subscription, or null'), ...partBErrors(401) },
  });
  path({
    method: 'post',
    path: '/api/payments/webhook',
    tags: ['Payments'],
    summary: "Stripe's events (Stripe-Signature over the raw body, 300 s tolerance); stored, then applied once",
    security: PUBLIC,
    request: {
      headers: z.object({ 'Stripe-Signature': z.string().meta({ description: 't=<unix>,v1=<hex HMAC-SHA256>' }) }),
      body: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    },
    responses: { 200: json(R.stripeAck, 'stored (also for a repeated event)'), ...partBErrors(400, 503) },
  });
}
