import { FREE_MONTHLY_TOKENS, grantFreeAllowancePage } from '../db/accounts';
import type { Config } from '../lib/config';
import { deleteExpiredIdempotencyKeys } from '../db/idempotency';
import { deleteExpiredSessions } from '../db/sessions';
import { purgeAccountTokens } from '../db/account-tokens';
import { expiredLevelsPage, reconcileStorageUsagePage, releaseExpiredLevels } from '../db/uploads';
import { preparedKey } from '../lib/images/design-levels';
import type { Storage } from '../lib/storage';
import { activityContext } from './deps';
import { createRecoveryActivities, type RecoveryDeps } from './recovery';

export interface MaintenanceDeps extends RecoveryDeps {
  /** PREPARED_LEVELS_RETENTION (30 days) when not given, and the recovery sweeps' settings; read at each run */
  config?: RecoveryDeps['config'] & Partial<Pick<Config, 'uploads'>>;
  /** Needed only by sweepStorage. */
  storage?: Storage;
}

/** Uploads per page of the prepared-levels retention, and accounts per page of the usage correction. */
export const STORAGE_SWEEP_PAGE = 500;
/** Prepared-level files deleted at once. */
const DELETE_CONCURRENCY = 8;
/** An account's storage total is corrected only when nothing changed it for this long (no upload in flight). */
export const STORAGE_USAGE_QUIET_MS = 3600_000;
const DEFAULT_LEVELS_RETENTION_MS = 30 * 86_400_000;

export interface StorageSweepResult {
  /** uploads whose prepared levels were deleted */
  levelsExpired: number;
  /** bytes given back to the accounts' quotas by that */
  bytesReleased: number;
  /** accounts whose stored-bytes total was corrected */
  usageCorrected: number;
}

/** Free accounts per statement of the allowance grant. */
export const FREE_ALLOWANCE_PAGE = 5000;

/** Housekeeping run by the maintenance schedule. Each step is idempotent, so a retried or doubled run is harmless. */
export function createMaintenanceActivities({ sql, log, temporal, config, storage, metrics }: MaintenanceDeps) {
  const retentionMs = config?.uploads?.preparedLevelsRetentionMs ?? DEFAULT_LEVELS_RETENTION_MS;
  return {
    ...createRecoveryActivities({ sql, log, temporal, config, metrics }),

    /**
     * Storage housekeeping. (1) Prepared levels no generation used for PREPARED_LEVELS_RETENTION (30 days): their files
     * are deleted, then their bytes given back to the accounts' quotas, a page of STORAGE_SWEEP_PAGE uploads at a
     * time; a heartbeat carries the cursor, so a retried attempt resumes. Deleting a missing file is no error and a
     * released upload is not released twice, so a repeated run changes nothing. The worker decodes a design whose
     * levels are gone from its original, to the same pixels. (2) Each account's stored-bytes total is set to the
     * sum of its uploads' files when they differ and nothing changed the total for an hour (a crash between an
     * upload's reservation and its row leaves it too high).
     */
    async sweepStorage(): Promise<StorageSweepResult> {
      const result: StorageSweepResult = { levelsExpired: 0, bytesReleased: 0, usageCorrected: 0 };
      if (!storage) return result;
      const ctx = activityContext();
      const resumed = ctx?.info.heartbeatDetails as { levelsAfter?: string | null; usageAfter?: string } | undefined;
      let levelsAfter = resumed?.levelsAfter ?? null;
      let usageAfter: string | null = resumed?.usageAfter ?? null;
      // a resumed attempt whose retention step had finished goes straight to the correction
      let levelsDone = resumed?.usageAfter !== undefined;
      while (!levelsDone) {
        const page = await expiredLevelsPage(sql, {
          olderThanMs: retentionMs,
          after: levelsAfter,
          limit: STORAGE_SWEEP_PAGE,
        });
        const deleted: string[] = [];
        for (let i = 0; i < page.rows.length; i += DELETE_CONCURRENCY) {
          const batch = page.rows.slice(i, i + DELETE_CONCURRENCY);
          const outcomes = await Promise.allSettled(batch.map((r) => storage.delete(preparedKey(r.storageKey))));
          outcomes.forEach((o, j) => {
            if (o.status === 'fulfilled') deleted.push(batch[j]!.id);
            else log.warn('could not delete prepared levels', { uploadId: batch[j]!.id, err: o.reason });
          });
        }
        const released = await releaseExpiredLevels(sql, deleted);
        result.levelsExpired += released.uploads;
        result.bytesReleased += released.bytes;
        levelsAfter = page.next;
        levelsDone = page.next === null;
        ctx?.heartbeat(levelsDone ? { usageAfter: '' } : { levelsAfter });
      }
      for (;;) {
        const page = await reconcileStorageUsagePage(sql, {
          afterUserId: usageAfter || null,
          limit: STORAGE_SWEEP_PAGE,
          quietMs: STORAGE_USAGE_QUIET_MS,
        });
        result.usageCorrected += page.corrected;
        if (page.next === null) break;
        usageAfter = page.next;
        ctx?.heartbeat({ usageAfter });
      }
      if (result.levelsExpired > 0)
        log.info('deleted unused prepared levels', { uploads: result.levelsExpired, bytes: result.bytesReleased });
      if (result.usageCorrected > 0)
        log.warn("corrected accounts' stored-bytes totals", { count: result.usageCorrected });
      return result;
    },

    async purgeExpiredSessions(): Promise<number> {
      const n = await deleteExpiredSessions(sql);
      if (n > 0) log.info('purged expired sessions', { count: n });
      return n;
    },

    /** Deletes one-time account links used, cancelled or expired over a day ago (ACCOUNT_TOKENS_KEPT_MS). */
    async purgeUsedAccountTokens(): Promise<number> {
      const n = await purgeAccountTokens(sql);
      if (n > 0) log.info('purged used and expired account links', { count: n });
      return n;
    },

    /** Deletes Idempotency-Keys past their lifetime (IDEMPOTENCY_KEY_TTL, 24 h), 5,000 rows per statement. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      const n = await deleteExpiredIdempotencyKeys(sql);
      if (n > 0) log.info('purged expired idempotency keys', { count: n });
      return n;
    },

    /**
     * Gives every Free account its allowance for the current period (keyed by period, so at most once each), set
     * based: one statement per page of FREE_ALLOWANCE_PAGE accounts, a heartbeat after each page carrying the
     * last account id, so a retried attempt resumes where the last one stopped instead of starting over.
     */
    async grantFreeAllowances(): Promise<number> {
      const ctx = activityContext();
      let afterId = (ctx?.info.heartbeatDetails as { afterId?: string } | undefined)?.afterId ?? null;
      let granted = 0;
      for (;;) {
        const page = await grantFreeAllowancePage(sql, { afterId, limit: FREE_ALLOWANCE_PAGE });
        granted += page.granted;
        if (page.lastId === null) break;
        afterId = page.lastId;
        ctx?.heartbeat({ afterId });
      }
      if (granted > 0) log.info('granted free monthly allowances', { count: granted });
      metrics?.tokens('grant', granted * FREE_MONTHLY_TOKENS);
      return granted;
    },
  };
}
