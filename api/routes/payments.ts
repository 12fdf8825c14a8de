// Part B payment routes: plans, Stripe Checkout, the billing portal, the subscription, and Stripe's
// signed events. Errors are {error: string}.
import express, { Router } from 'express';
import { requireAppSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { afterAnswer } from '../http/after-answer';
import { jsonBody } from '../middleware/body';
import { checkoutBody } from '../http/app-schemas';
import { checkout, plans, portal, receiveStripeEvent, subscription } from '../services/payments';

/** Stripe's events are small (a few KB); the limit leaves room for large invoices. */
const EVENT_BODY_LIMIT = '1mb';

export function paymentRoutes(deps: AppDeps): Router {
  const r = Router();
  const session = requireAppSession(deps);

  r.get('/payments/plans', async (_req, res) => {
    res.json(await plans(deps));
  });

  r.post('/payments/checkout', session, jsonBody(), async (req, res) => {
    res.json(await checkout(deps, req.user!, parse(checkoutBody, req.body)));
  });

  // No body is expected; one sent is ignored (read so the connection stays clean).
  r.post('/payments/portal', session, jsonBody(), async (req, res) => {
    res.json(await portal(deps, req.user!));
  });

  r.get('/payments/subscription', session, async (req, res) => {
    res.json(await subscription(deps, req.user!.id));
  });

  // The raw bytes are what Stripe signed: parsed only after the signature check.
  r.post('/payments/webhook', express.raw({ type: () => true, limit: EVENT_BODY_LIMIT }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const { eventId, dispatch } = await receiveStripeEvent(deps, req.headers['stripe-signature'], raw);
    res.status(200).json({ received: true });
    afterAnswer(deps.log, 'starting the Stripe event workflow', dispatch, { eventId });
  });

  return r;
}
