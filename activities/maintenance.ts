import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { grantFreeAllowance } from '../db/accounts';
import type { Sql } from '../db/client';
import { failAndRefund, stalePendingGenerations } from '../db/generations';
import type { Logger } from '../lib/log';
import { purgeExpiredSessions } from '../db/sessions';

export interface MaintenanceDeps {
  sql: Sql;
  log: Logger;
  /** Needed only by recoverOrphanedGenerations. */
  temporal?: Client;
}

/** A generation still pending after this long without a workflow was orphaned by an API crash. */
const ORPHAN_AFTER_MINUTES = 10;

/** Housekeeping run by the maintenance schedule. Each step is idempotent, so a retried or doubled run is harmless. */
export function createMaintenanceActivities({ sql, log, temporal }: MaintenanceDeps) {
  return {
    async purgeExpiredSessions(): Promise<number> {
      const n = await purgeExpiredSessions(sql);
      if (n > 0) log.info('purged expired sessions', { count: n });
      return n;
    },

    /** Gives every Free account its allowance for the current period (keyed by period, so at most once each). */
    async grantFreeAllowances(): Promise<number> {
      const users = await sql<
        { id: string; createdAt: Date }[]
      >`select id, created_at as "createdAt" from users where plan = 'free'`;
      let granted = 0;
      for (const u of users) if (await grantFreeAllowance(sql, u)) granted++;
      if (granted > 0) log.info('granted free monthly allowances', { count: granted });
      return granted;
    },

    /**
     * The API charges a token, records the generation and then starts its workflow. Should the API die between
     * the two, the generation would stay pending with the token taken: find those, refund and mark them failed.
     */
    async recoverOrphanedGenerations(): Promise<number> {
      if (!temporal) return 0;
      const stale = await stalePendingGenerations(sql, ORPHAN_AFTER_MINUTES);
      let recovered = 0;
      for (const { id, workflowId } of stale) {
        try {
          // A batch item runs in its batch's workflow; a single generation in its own.
          await temporal.workflow.getHandle(workflowId).describe();
          continue; // it has a workflow: it is merely queued, not orphaned
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
        const [outcome] = await failAndRefund(sql, [id], 'The generation could not be started; the token was refunded');
        if (outcome?.status === 'failed' && outcome.refunded) recovered++;
      }
      if (recovered > 0) log.warn('recovered orphaned generations', { count: recovered });
      return recovered;
    },
  };
}
