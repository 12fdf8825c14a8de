// The API's machine-readable contract and its reference page: GET /api/v1/openapi.json, generated from
// the routes' zod schemas (api/openapi/document.ts), and GET /docs, Scalar's API reference served from the npm
// package (no CDN: the page loads nothing from outside this service), with the webhook verification recipe.
import { createHash } from 'node:crypto';
import path from 'node:path';
import express, { Router } from 'express';
import type { AppDeps } from '../context';
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document';

/** Scalar's standalone browser bundle (one self-contained script) from node_modules. */
// (The package exports only its entry, dist/index.js; the bundle sits beside it in dist/browser.)
const SCALAR_DIR = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser');

/** Scalar's options: nothing fetched from outside (no web fonts, telemetry, AI agent or MCP buttons). */
const SCALAR_CONFIG = {
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideDarkModeToggle: false,
  defaultOpenAllTags: false,
  documentDownloadType: 'json',
  metaData: { title: 'Apparel mockup service: API reference' },
};

/** The page's one inline script; the Content-Security-Policy allows exactly it, by its hash. */
const INLINE_SCRIPT = `Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_CONFIG)});`;
const INLINE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(INLINE_SCRIPT).digest('base64')}'`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference: apparel mockup service</title>
    <link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48" />
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <style>body { margin: 0; font-family: system-ui, sans-serif; } .back { position: fixed; right: 1rem; bottom: 1rem; z-index: 10; background: #1d4ed8; color: #fff; padding: .5rem .8rem; border-radius: .4rem; text-decoration: none; }</style>
  </head>
  <body>
    <div id="app"></div>
    <a class="back" href="/">Dashboard</a>
    <script src="/docs/assets/standalone.js"></script>
    <script>${INLINE_SCRIPT}</script>
  </body>
</html>
`;

/**
 * The reference page's policy, as strict as the dashboard's (api/routes/dashboard.ts) where Scalar allows: scripts
 * only from this service plus the inline call by its hash; styles also inline (Scalar's components set style
 * attributes and insert style elements at run time); its "try it" client sends requests to this service only; no
 * framing.
 */
export function docsPolicy(publicBaseUrl: string): string {
  const own = new URL(publicBaseUrl).origin;
  return [
    "default-src 'self'",
    `script-src 'self' ${INLINE_SCRIPT_HASH}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${own}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function docsRoutes(deps: AppDeps): Router {
  const r = Router();
  let doc: OpenApiDocument | undefined;

  r.get('/api/v1/openapi.json', (_req, res) => {
    doc ??= buildOpenApiDocument(deps.config);
    res.setHeader('Cache-Control', 'no-cache');
    res.json(doc);
  });

  r.get('/docs', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', docsPolicy(deps.config.publicBaseUrl));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.type('html').send(PAGE);
  });

  // The bundle and its source maps: static files of the installed package version.
  r.use(
    '/docs/assets',
    express.static(SCALAR_DIR, {
      index: false,
      fallthrough: true,
      maxAge: '1h',
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );

  return r;
}
