import type { Client } from '@temporalio/client';
import type { Sql } from '../db/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import type { Storage } from '../lib/storage';
import { createBlankCache } from '../lib/compositing';
import { MAX_IMAGE_BYTES } from '../lib/images';
import { createBulkActivities } from './bulk';
import { createChatActivities } from './chat';
import { createGenerationActivities } from './generation';
import { createInboundActivities, type InboundWorkflows } from './inbound';
import { createAccountDeletionActivities } from './account-deletion';
import { createMailActivities } from './mail';
import { createMaintenanceActivities } from './maintenance';
import { createPaymentActivities } from './payments';
import { createProductionActivities } from './production';
import { createRequestLogActivities } from './request-log';
import { createStorefrontActivities } from './storefront';
import { createUserImageLoader } from '../lib/fetch/user-images';
import { createWebhookActivities } from './webhooks';
import { createPreparedTemplateCache } from '../lib/template-import/prepared-store';
import { templateOutputsRefresher } from '../db/templates';
import { createTemplateActivities } from './templates';
import { createUploadAnalysisActivities } from './upload-analysis';

export interface ActivityDeps {
  /** The inbound workflows by reference, for the inbound sweep (the worker passes them). */
  inboundWorkflows?: InboundWorkflows;
  /** A Temporal client, for activities that look at other workflows (orphan recovery). */
  temporal?: Client;
  config: Config;
  sql: Sql;
  storage: Storage;
  log: Logger;
  /** The application's metrics (lib/metrics.ts); the worker gives the SDK's meter, tests may give their own. */
  metrics?: AppMetrics;
}

/** All activities of the worker, built from their dependencies (the Temporal samples' createActivities pattern). */
export function createActivities(deps: ActivityDeps) {
  const loadUserImage = createUserImageLoader(deps);
  // One prepared-blank cache per worker (lib/compositing/sources.ts): decoded blanks and fabric maps are reused by
  // every generation and chat mockup. Keys are storage keys of our blanks, or `url:<address>` for a client's own
  // blank photo (the garment in it found once, for the print zone).
  const blanks = createBlankCache({ storage: deps.storage, loadUserImage }, { findGarment: true });
  // One prepared-template cache per worker: the import puts what it prepared, renders read through it.
  const templates = createPreparedTemplateCache(deps.storage, deps.config.templates.cacheBytes, {
    preparedAgain: templateOutputsRefresher(deps.sql, deps.storage),
    jpegRows: true,
  });
  return {
    ...createTemplateActivities({ ...deps, templates }),
    ...createGenerationActivities({ ...deps, blanks, loadUserImage, templates }),
    ...createBulkActivities(deps),
    ...createUploadAnalysisActivities(deps),
    ...createMaintenanceActivities(deps),
    ...createWebhookActivities(deps),
    ...createStorefrontActivities(deps),
    ...createProductionActivities(deps),
    ...createInboundActivities(deps),
    ...createPaymentActivities(deps),
    ...createMailActivities(deps),
    ...createAccountDeletionActivities(deps),
    ...createRequestLogActivities(deps),
    // chat reference images are held to the upload limits (10 MB); foreign blanks share generation's blank cache
    ...createChatActivities({
      ...deps,
      blanks,
      loadUserImage: createUserImageLoader(deps, { maxBytes: MAX_IMAGE_BYTES }),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
