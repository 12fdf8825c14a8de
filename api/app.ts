import express from 'express';
import type { AppDeps } from './context';
import { errorHandler, notFoundHandler } from './errors';
import { createApiMetrics } from './metrics';
import { mcpEndpoint } from './mcp/endpoint';
import { requestContext } from './middleware/request-context';
import { analyzeRoutes } from './routes/analyze';
import { accountRoutes } from './routes/account';
import { accountSafetyRoutes } from './routes/account-safety';
import { authRoutes } from './routes/auth';
import { chatRoutes } from './routes/chat';
import { dashboardRoutes } from './routes/dashboard';
import { deliveryRoutes } from './routes/deliveries';
import { docsRoutes } from './routes/docs';
import { fileRoutes } from './routes/files';
import { garmentRoutes } from './routes/garments';
import { generationBatchRoutes } from './routes/generation-batch';
import { bulkRoutes } from './routes/bulk';
import { generationRoutes } from './routes/generations';
import { healthRoutes } from './routes/health';
import { onboardingRoutes } from './routes/onboarding';
import { keyRoutes } from './routes/keys';
import { paymentRoutes } from './routes/payments';
import { previewRoutes } from './routes/preview';
import { printFileRoutes } from './routes/print-files';
import { productionRoutes } from './routes/production';
import { requestLogRoutes } from './routes/requests';
import { sampleRoutes } from './routes/samples';
import { storefrontRoutes } from './routes/storefront';
import { templateRoutes } from './routes/templates';
import { uploadRoutes } from './routes/upload';
import { uploadLibraryRoutes } from './routes/upload-library';
import { webhookRoutes } from './routes/webhooks';

/** Builds the Express app. One router per resource; Part A lives under /api/v1, Part B under /api. */
export function createApp(given: AppDeps): express.Express {
  const metrics = given.metrics ?? createApiMetrics();
  const deps: AppDeps = { ...given, metrics };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);

  app.use(requestContext(deps.log));
  app.use(metrics.observe);
  // GET /metrics: a middleware, not a route, as it is no part of the API (docs/operations.md; not in OpenAPI).
  app.use(metrics.endpoint(deps.config.metricsToken));
  // Over https (always in production) browsers are told to use nothing else for a year: no request, and so no
  // cookie, ever goes out in clear after the first visit (docs/security.md#session-cookie).
  if (deps.config.https)
    app.use((_req, res, next) => {
      res.setHeader('Strict-Transport-Security', 'max-age=31536000');
      next();
    });
  app.use(healthRoutes(deps));
  app.use(fileRoutes(deps));
  app.use(docsRoutes(deps));
  // POST /mcp (docs/mcp.md): the public API's tools for AI agents, keyed like Part A; a middleware, not in OpenAPI.
  app.use(mcpEndpoint(deps));

  // Part A: the public API.
  app.use('/api/v1', keyRoutes(deps));
  app.use('/api/v1', garmentRoutes(deps));
  app.use('/api/v1', generationBatchRoutes(deps));
  app.use('/api/v1', bulkRoutes(deps));
  app.use('/api/v1', generationRoutes(deps));
  app.use('/api/v1', previewRoutes(deps));
  app.use('/api/v1', uploadRoutes(deps));
  app.use('/api/v1', uploadLibraryRoutes(deps));
  app.use('/api/v1', analyzeRoutes(deps));
  app.use('/api/v1', webhookRoutes(deps));
  app.use('/api/v1', deliveryRoutes(deps));
  app.use('/api/v1', requestLogRoutes(deps));
  // print files: Part A's under /api/v1, the chat mockup's under /api
  app.use('/api', printFileRoutes(deps));
  app.use('/api/v1', templateRoutes(deps));

  // Part B: application routes.
  app.use('/api', authRoutes(deps));
  app.use('/api', accountRoutes(deps));
  app.use('/api', accountSafetyRoutes(deps));
  app.use('/api', storefrontRoutes(deps));
  app.use('/api', productionRoutes(deps));
  app.use('/api', paymentRoutes(deps));
  app.use('/api', chatRoutes(deps));
  app.use('/api', sampleRoutes(deps));
  app.use('/api', onboardingRoutes(deps));

  // The dashboard: static files of web/ at / (GET and HEAD only; anything else falls through to 404).
  app.use(dashboardRoutes(deps));

  app.use(notFoundHandler);
  app.use(metrics.observeErrors);
  app.use(errorHandler);
  return app;
}
