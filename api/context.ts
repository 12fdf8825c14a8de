import type { Client } from '@temporalio/client';
import type { Sql } from '../db/client';
import type { IdempotencyRef } from '../db/idempotency';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { Storage } from '../lib/storage';
import type { ApiMetrics } from './metrics';

/** Everything a route needs, passed in explicitly so tests can build an app against their own stack. */
export interface AppDeps {
  config: Config;
  sql: Sql;
  storage: Storage;
  temporal: Client;
  log: Logger;
  /** The app's Prometheus metrics; createApp makes them when not given. */
  metrics?: ApiMetrics;
}

export interface AuthedUser {
  id: string;
  email: string;
  plan: string;
  createdAt: Date;
}

declare global {
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
      user?: AuthedUser;
      apiKeyId?: string;
      /** Set when a Part A route was called with the session cookie instead of a key (the dashboard). */
      sessionUserId?: string;
      /**
       * Part A mode: false for a test key or a session call with `X-Mockup-Mode: test`. Set by the keyed routes'
       * authentication; a request sees and creates only generations and deliveries of its own mode.
       */
      livemode?: boolean;
      /** The bytes of a JSON body as received (jsonBody), for the Idempotency-Key fingerprint. */
      rawBody?: Buffer;
      /** The Idempotency-Key this request holds (api/middleware/idempotency.ts), passed to the charge. */
      idempotency?: IdempotencyRef;
    }
  }
}
