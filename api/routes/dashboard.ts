// The dashboard (issue 15): a small client app of plain ES modules and CSS in web/, served as static files at /
// (the spec's {app_url}). No build step and no CDN: everything the page loads comes from this service, which the
// Content-Security-Policy below also enforces in the browser.
import path from 'node:path';
import express, { Router } from 'express';
import type { AppDeps } from '../context';

export const WEB_DIR = path.resolve(__dirname, '../../web');

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
  r.use(
    express.static(WEB_DIR, {
      index: 'index.html',
      // the files change with each deployment and are small: revalidate every time (ETag / Last-Modified)
      maxAge: 0,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', 'no-cache');
        res.setHeader('Content-Security-Policy', csp);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Referrer-Policy', 'same-origin');
      },
    }),
  );
  return r;
}
