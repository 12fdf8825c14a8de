// The dashboard: a small client app of plain ES modules and CSS in web/, served as static files at /
// (the spec's {app_url}). No build step and no CDN: everything the page loads comes from this service, which the
// Content-Security-Policy below also enforces in the browser.
import path from 'node:path';
import express, { Router } from 'express';
import type { AppDeps } from '../context';

export const WEB_DIR = path.resolve(__dirname, '../../web');

/**
 * The dashboard's pages as server paths. Outside services send the browser back to these (Stripe's checkout
 * success_url and cancel_url, the portal's return_url, the Shopify OAuth callback's redirect): each one redirects to
 * the page's hash route with the same query, so `/billing?checkout=success` opens `/#/billing?checkout=success`.
 * Any other path stays a 404.
 */
export const APP_PAGES = [
  'studio',
  'designs',
  'bulk',
  // moved to developers (the page redirects), kept for old links
  'keys',
  'developers',
  'billing',
  'chat',
  'storefront',
  'signin',
  'signup',
  // the links of the account mails (docs/accounts.md), and the account page
  'verify-email',
  'forgot-password',
  'reset-password',
  'email-not-me',
  'account',
] as const;

/** Files of web/ that are for the type checker, not the browser. */
export const NOT_SERVED = /(^\/tsconfig\.json$)|(\.d\.ts$)/;

export function dashboardRoutes(deps: AppDeps): Router {
  const r = Router();
  const own = new URL(deps.config.publicBaseUrl).origin;
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // mockups, blanks and uploads are /files URLs built from PUBLIC_BASE_URL; previews arrive as blobs
    `img-src 'self' ${own} blob: data:`,
    `connect-src 'self' ${own}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  for (const page of APP_PAGES)
    r.get(`/${page}`, (req, res) => {
      const q = req.originalUrl.indexOf('?');
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, `/#/${page}${q >= 0 ? req.originalUrl.slice(q) : ''}`);
    });
  // The type-checking files that live beside the dashboard's code (web/tsconfig.json, web/js/*.d.ts) are not the
  // dashboard's: never served (the JSON 404 of any missing file).
  const serve = express.static(WEB_DIR, {
    index: 'index.html',
    // the files change with each deployment and are small: revalidate every time (ETag / Last-Modified)
    maxAge: 0,
    setHeaders: (res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('Content-Security-Policy', csp);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Referrer-Policy', 'same-origin');
    },
  });
  r.use((req, res, next) => (NOT_SERVED.test(req.path) ? next() : serve(req, res, next)));
  return r;
}
