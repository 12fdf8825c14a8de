import { grantFreeAllowance } from '../db/accounts';
import type { Sql } from '../db/client';
import type { Logger } from '../lib/log';
import { purgeExpiredSessions } from '../db/sessions';

export interface MaintenanceDeps {
  sql: Sql;
  log: Logger;
}

/** Housekeeping run by the maintenance schedule. Each step is idempotent, so a retried or doubled run is harmless. */
export function createMaintenanceActivities({ sql, log }: MaintenanceDeps) {
  return {
    async purgeExpiredSessions(): Promise<number> {
      const n = await purgeExpiredSessions(sql);
      if (n > 0) log.info('purged expired sessions', { count: n });
      return n;
    },

    /** Gives every Free account its allowance for the current period (keyed by period, so at most once each). */
    async grantFreeAllowances(): Promise<number> {
      const users = await sql<{ id: string; createdAt: Date }[]>`select id, created_at as "createdAt" from users where plan = 'free'`;
      let granted = 0;
      for (const u of users) if (await grantFreeAllowance(sql, u)) granted++;
      if (granted > 0) log.info('granted free monthly allowances', { count: granted });
      return granted;
    },
  };
}
