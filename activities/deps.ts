// What the activity factories are given (their dependencies), and the one way an activity says "no retry can fix
// this": a non-retryable failure of a type the flow's contract names (lib/<flow>/types.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../db/client';
import type { PreparedBlankCache } from '../lib/compositing';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import type { Storage } from '../lib/storage';

/** Bookkeeping activities: PostgreSQL, the configuration, the log. */
export interface BookkeepingDeps {
  sql: Sql;
  config: Config;
  log: Logger;
  /** The application's metrics (lib/metrics.ts); unset: none counted (tests that do not look at them). */
  metrics?: AppMetrics;
}

/** Image activities (generation, chat): bookkeeping's, plus files and the compositing inputs. */
export interface ImageActivityDeps extends BookkeepingDeps {
  storage: Storage;
  /** the worker's prepared-blank cache (lib/compositing/sources.ts): catalogue keys, or `url:<address>` */
  blanks: PreparedBlankCache;
  /** Reads a user-supplied image URL: our own files from storage, anything else through the SSRF-guarded fetcher;
   * a BadInputError for inputs no retry can fix. */
  loadUserImage: (url: string, signal?: AbortSignal) => Promise<Buffer>;
}

/**
 * A non-retryable activity failure of `type` (one of the flow's non-retryable error types), with its details (e.g.
 * a provider attempt) for the workflow's record. The one way activities build one.
 */
export const nonRetryable = (type: string, message: string, details?: unknown) =>
  ApplicationFailure.create({ message, type, nonRetryable: true, details: details === undefined ? [] : [details] });

/** The activity's context when running as an activity (heartbeats); undefined when called directly (tests). */
export function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
