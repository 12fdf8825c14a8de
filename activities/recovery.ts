// Recovery of paid work nothing will finish (run by the maintenance and chat-jobs sweeps): generations and chat jobs
// whose workflow closed without finishing them, or never started. Each is failed and refunded in one transaction
// (db/generations.ts failAndRefund, db/chat.ts failAndRefundChatJob); the sweeps are, with the workflows themselves,
// the only places that fail a started job.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { closeBulk, staleRunningBulks } from '../db/bulk';
import { failAndRefundChatJob, staleRunningChatJobs } from '../db/chat';
import type { Sql } from '../db/client';
import { failAndRefund, staleUnfinishedGenerations } from '../db/generations';
import type { ChatConfig, Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import { bulkWorkflowId } from '../lib/bulk/types';
import { activityContext } from './deps';

/** What the recovery sweeps need (a part of the maintenance activities' deps). */
export interface RecoveryDeps {
  sql: Sql;
  log: Logger;
  metrics?: AppMetrics;
  /** Without it the sweeps find nothing (they ask Temporal how each workflow ended). */
  temporal?: Client;
  /** GENERATION_ORPHAN_AFTER (10 minutes) and CHAT_ORPHAN_AFTER (2 minutes) when not given; read at each run */
  config?: Pick<Config, 'generationOrphanAfterMs'> & { chat?: Pick<ChatConfig, 'orphanAfterMs'> };
}

/** A generation still pending after this long without a workflow was orphaned by an API crash (GENERATION_ORPHAN_AFTER). */
const DEFAULT_ORPHAN_AFTER_MS = 10 * 60_000;
/** CHAT_ORPHAN_AFTER when not given. */
const DEFAULT_CHAT_ORPHAN_AFTER_MS = 2 * 60_000;
/** Chat jobs read per page by the chat-jobs sweep (a heartbeat after each). */
export const CHAT_SWEEP_PAGE = 100;

/**
 * How a workflow ended, lower case (`terminated`, `failed`, ...); `missing` when it never existed; null while it
 * still runs (the work is queued or slow, not orphaned).
 */
async function closedStatus(temporal: Client, workflowId: string): Promise<string | null> {
  try {
    const d = await temporal.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING' ? null : d.status.name.toLowerCase();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return 'missing';
  }
}

export function createRecoveryActivities({ sql, log, temporal, config, metrics }: RecoveryDeps) {
  const orphanAfterMs = config?.generationOrphanAfterMs ?? DEFAULT_ORPHAN_AFTER_MS;
  return {
    /**
     * Generations nothing will finish: still pending or processing GENERATION_ORPHAN_AFTER (10 minutes) on, and their
     * workflow does not exist (the API died between charging and starting it) or has closed without finishing them
     * (terminated, timed out, failed after the begin step). Each is failed and refunded in one transaction. A generation whose
     * workflow is still running is merely queued or slow, and is left alone.
     */
    async recoverOrphanedGenerations(): Promise<number> {
      if (!temporal) return 0;
      const stale = await staleUnfinishedGenerations(sql, orphanAfterMs);
      let recovered = 0;
      for (const { id, status, workflowId } of stale) {
        // A batch item runs in its batch's workflow; a single generation in its own.
        const closed = await closedStatus(temporal, workflowId);
        if (closed === null) continue;
        const reason =
          closed === 'missing'
            ? 'The generation could not be started; the token was refunded'
            : `The generation's workflow ended (${closed}) before it finished; the token was refunded`;
        const [outcome] = await failAndRefund(sql, [id], reason);
        if (outcome?.status === 'failed' && outcome.refunded) {
          recovered++;
          metrics?.tokens('refund', 1);
          metrics?.generationFinished(id, 'failed');
          log.warn('recovered an unfinished generation', { generationId: id, was: status, workflowId });
        }
      }
      if (recovered > 0) log.warn('recovered orphaned generations', { count: recovered });
      // A bulk whose workflow has closed without closing it (terminated, or never started): its items were failed
      // and refunded above (their workflow is the bulk's); the bulk ends, without an archive or a callback.
      for (const id of await staleRunningBulks(sql, orphanAfterMs)) {
        const closed = await closedStatus(temporal, bulkWorkflowId(id));
        if (closed === null) continue;
        await closeBulk(sql, id, null);
        log.warn('closed a bulk whose workflow had ended', { bulkId: id, workflow: closed });
      }
      return recovered;
    },

    /**
     * Chat jobs nothing will finish: still `running` CHAT_ORPHAN_AFTER (2 minutes) after they were created, and
     * their chatDesign workflow (id = job id) has closed without finishing them (terminated, timed out, failed
     * because its own failure step ran out of attempts) or does not exist (the API died between inserting the job
     * and starting it). Each is failed (`generation_failed`: GET /api/chat/jobs/<id> answers 500) and its debit
     * refunded if one was taken, in one transaction (db/chat.ts failAndRefundChatJob: refund reference refund:<job id>, so
     * a second sweep gives nothing back twice). A job whose workflow still runs is slow, and is left alone.
     */
    async recoverStuckChatJobs(): Promise<{ failed: number; refunded: number }> {
      if (!temporal) return { failed: 0, refunded: 0 };
      const olderThanMs = config?.chat?.orphanAfterMs ?? DEFAULT_CHAT_ORPHAN_AFTER_MS;
      const ctx = activityContext();
      let failed = 0;
      let refunded = 0;
      let after: { c: string; i: string } | undefined;
      for (;;) {
        const page = await staleRunningChatJobs(sql, { olderThanMs, after, limit: CHAT_SWEEP_PAGE });
        for (const job of page) {
          const closed = await closedStatus(temporal, job.id);
          if (closed === null) continue;
          const error =
            closed === 'missing'
              ? 'The job was never started'
              : `The job's workflow ended (${closed}) before it finished`;
          const out = await failAndRefundChatJob(sql, { jobId: job.id, error, failure: 'generation_failed' });
          if (out.status !== 'failed' || out.duplicate) continue;
          failed++;
          metrics?.chatJobFinished(job.id, 'none', 'failed');
          if (out.refunded) refunded++;
          log.warn('failed a stuck chat job', { jobId: job.id, userId: job.userId, error, refunded: out.refunded });
        }
        if (page.length < CHAT_SWEEP_PAGE) break;
        const last = page[page.length - 1]!;
        after = { c: last.createdAt, i: last.id };
        ctx?.heartbeat();
      }
      return { failed, refunded };
    },
  };
}
