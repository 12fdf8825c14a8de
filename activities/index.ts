import type { Sql } from '../db/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { Storage } from '../lib/storage';
import { createMaintenanceActivities } from './maintenance';

export interface ActivityDeps {
  config: Config;
  sql: Sql;
  storage: Storage;
  log: Logger;
}

/** All activities of the worker, built from their dependencies (the Temporal samples' createActivities pattern). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMaintenanceActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
