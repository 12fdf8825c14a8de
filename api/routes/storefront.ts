// Part B storefront routes: connect a Shopify store with OAuth, publish mockups as products, take order
// webhooks, send fulfillment tracking. Session-authenticated except the webhook receiver (signed by Shopify). The
// OAuth callback and the app URL are signed by Shopify and read the session themselves: the callback connects only
// for the user who started the install (its state's user); the app URL starts an install for the signed-in user.
// Errors are {error: string}.
import type { Request } from 'express';
import express, { Router } from 'express';
import { requireAppSession, sessionUser } from '../auth/sessions';
import type { AppDeps } from '../context';
import { ApiError, badRequest, parse } from '../errors';
import { afterAnswer } from '../http/after-answer';
import {
  callbackQuery,
  costsQuery,
  fulfillmentBody,
  installBody,
  publishBody,
  storefrontIdParam,
} from '../http/app-schemas';
import { jsonBody } from '../middleware/body';
import { storefrontInstallRateLimit } from '../middleware/storefront-rate-limit';
import {
  appLaunch,
  completeCallback,
  connections,
  disconnectConnection,
  startInstall,
} from '../services/storefront/connect';
import { dataRequests, fulfill, orders } from '../services/storefront/orders';
import { costEstimate, products, publish } from '../services/storefront/publish';
import { receiveWebhook } from '../services/storefront/webhooks';

export function storefrontRoutes(deps: AppDeps): Router {
  const r = Router();
  const session = requireAppSession(deps);
  const installLimit = storefrontInstallRateLimit(deps);
  /** The signed-in user, or undefined (no cookie, or an expired session): the callback decides what that means. */
  const optionalUser = (req: Request) =>
    sessionUser(deps, req).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return undefined;
      throw err;
    });

  r.post('/storefront/connect/install', session, installLimit, jsonBody(), async (req, res) => {
    const { shop } = parse(installBody, req.body);
    res.json(await startInstall(deps, req.user!.id, shop));
  });

  r.get('/storefront/callback', async (req, res) => {
    const query = parse(callbackQuery, req.query, 'query');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, await completeCallback(deps, query, (await optionalUser(req))?.id));
  });

  // The app URL (Shopify's "App URL"): an install started from the shop's admin.
  r.get(
    '/storefront/app',
    async (req, _res, next) => {
      req.user = await optionalUser(req);
      next();
    },
    installLimit,
    async (req, res) => {
      const query = parse(callbackQuery, req.query, 'query');
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, await appLaunch(deps, query, req.user?.id));
    },
  );

  r.get('/storefront/connect', session, async (req, res) => {
    res.json({ connections: await connections(deps, req.user!.id) });
  });

  r.delete('/storefront/connect/:id', session, async (req, res) => {
    const id = String(req.params.id);
    if (!storefrontIdParam('shc').safeParse(id).success) {
      res.status(404).json({ error: 'Connection not found' });
      return;
    }
    res.json(await disconnectConnection(deps, req.user!.id, id));
  });

  r.post('/storefront/publish', session, jsonBody(), async (req, res) => {
    const out = await publish(deps, req.user!.id, parse(publishBody, req.body));
    res.status(out.status).json(out.body);
  });

  r.get('/storefront/costs', session, async (req, res) => {
    res.json(await costEstimate(deps, req.user!.id, parse(costsQuery, req.query, 'query')));
  });

  r.get('/storefront/products', session, async (req, res) => {
    res.json({ products: await products(deps, req.user!.id) });
  });

  // The raw bytes are what Shopify signed: parsed only after the signature check.
  r.post('/storefront/webhooks/orders', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    if (!raw) throw badRequest('Empty body');
    const { dispatch } = await receiveWebhook(deps, { rawBody: raw, headers: req.headers });
    res.status(200).json({ ok: true });
    afterAnswer(deps.log, 'starting the Shopify webhook workflow', dispatch, {
      webhookId: req.headers['x-shopify-webhook-id'],
    });
  });

  r.get('/storefront/orders', session, async (req, res) => {
    res.json({ orders: await orders(deps, req.user!.id) });
  });

  r.get('/storefront/data-requests', session, async (req, res) => {
    res.json({ dataRequests: await dataRequests(deps, req.user!.id) });
  });

  r.post('/storefront/orders/:id/fulfillment', session, jsonBody(), async (req, res) => {
    const id = String(req.params.id);
    if (!storefrontIdParam('ord').safeParse(id).success) {
      res.status(404).json({ error: 'Order not found' });
      return;
    }
    const b = parse(fulfillmentBody, req.body);
    const out = await fulfill(deps, req.user!.id, id, {
      number: b.trackingNumber,
      company: b.trackingCompany,
      ...(b.trackingUrl ? { url: b.trackingUrl } : {}),
    });
    res.status(out.status).json(out.body);
  });

  return r;
}
