// Activities of the `bulk` workflow (issue 35), run as local activities: read the items in pages, and finish the bulk
// (fail and refund what a cancel left unrendered, stream the ZIP of every completed mockup into storage, close the
// row). Each is idempotent on the bulk id: a re-run after a worker crash reads the same page, refunds nothing twice
// (refund:<generation id>), writes the same archive (same entries, same order, fixed dates) under the same key and
// finds the row closed already.
import {
  bulkAccount,
  bulkArchiveEntries,
  bulkCounts,
  bulkItemsPage,
  closeBulk,
  failPendingItems,
  getBulkById,
} from '../db/bulk';
import type { BulkFinished, BulkItem } from '../lib/bulk/types';
import { zipStream } from '../lib/production/archive';
import { fileUrl, putStream, type Storage } from '../lib/storage';
import { nonRetryable, type BookkeepingDeps } from './deps';

export interface BulkActivityDeps extends BookkeepingDeps {
  storage: Storage;
}

/** Where a bulk's archive is stored. */
export const bulkArchiveKey = (bulkId: string) => `archives/${bulkId}.zip`;

export function createBulkActivities(deps: BulkActivityDeps) {
  const { sql, storage, config, log } = deps;
  return {
    /** The bulk's items after `afterPosition`, `limit` of them, in order. */
    async bulkItems(bulkId: string, afterPosition: number, limit: number): Promise<BulkItem[]> {
      return bulkItemsPage(sql, bulkId, afterPosition, limit);
    },

    /**
     * Ends a bulk whose dispatched items have all finished: fails and refunds items a cancel left pending, streams
     * the ZIP of the completed mockups into storage (none: no archive), closes the row (completed, or canceled as the
     * cancel left it) and returns where it stands, for its bulk.completed callback.
     */
    async finishBulk(bulkId: string): Promise<BulkFinished> {
      const bulk = await getBulkById(sql, bulkId);
      if (!bulk) throw nonRetryable('BadInputError', `bulk ${bulkId} does not exist`);
      // only a cancel leaves items pending: the workflow dispatched every item otherwise
      const refunded = await failPendingItems(sql, bulkId);
      if (refunded > 0) log.info('bulk items not rendered were refunded', { bulkId, refunded });
      // an account being deleted gets no archive and no bulk.completed (its files are being erased)
      // what the workflow reports: the bulk's row as closed (or as read, for a deleted account's) and its counts now
      const finished = async (
        b: { status: string; total: number; tokensCharged: number },
        rest: Pick<BulkFinished, 'archiveUrl' | 'finishedAt' | 'webhookUrl' | 'accountDeleted'>,
      ): Promise<BulkFinished> => {
        const counts = await bulkCounts(sql, bulkId);
        return {
          status: b.status === 'canceled' ? 'canceled' : 'completed',
          total: b.total,
          completed: counts.completed,
          failed: counts.failed,
          tokensCharged: b.tokensCharged,
          tokensRefunded: b.tokensCharged - counts.tokensHeld,
          ...rest,
        };
      };
      const gone = async (): Promise<BulkFinished> => {
        log.info('bulk of a deleted account: no archive, no bulk.completed', { bulkId });
        return finished(bulk, {
          archiveUrl: null,
          finishedAt: new Date().toISOString(),
          webhookUrl: null,
          accountDeleted: true,
        });
      };
      if (!(await bulkAccount(sql, bulkId))) return gone();
      let archiveKey = bulk.archiveKey;
      let stored: string | null = null;
      if (!archiveKey) {
        const entries = await bulkArchiveEntries(sql, bulkId);
        if (entries.length > 0) {
          const key = bulkArchiveKey(bulkId);
          const t0 = performance.now();
          const zip = zipStream(
            entries.map((e) => ({
              name: e.entryName,
              load: async () => {
                const obj = await storage.get(e.mockupKey);
                if (!obj) throw new Error(`mockup ${e.mockupKey} is missing from storage`);
                return obj.body;
              },
            })),
            bulk.createdAt,
          );
          await putStream(storage, key, zip, 'application/zip');
          archiveKey = key;
          stored = key;
          log.info('bulk archive stored', { bulkId, entries: entries.length, ms: Math.round(performance.now() - t0) });
        }
      }
      const row = await closeBulk(sql, bulkId, archiveKey);
      if (!row) {
        // refused: its account's deletion was asked for while the archive was written (its file step may have
        // listed the account's files already, without this one), or the bulk is gone with it
        if (stored) await storage.delete(stored);
        if (!(await getBulkById(sql, bulkId)) || !(await bulkAccount(sql, bulkId))) return gone();
        throw nonRetryable('BadInputError', `bulk ${bulkId} could not be closed`);
      }
      return finished(row, {
        archiveUrl: row.archiveKey ? fileUrl(config, row.archiveKey) : null,
        finishedAt: (row.finishedAt ?? new Date()).toISOString(),
        webhookUrl: row.webhookUrl,
      });
    },
  };
}

export type BulkActivities = ReturnType<typeof createBulkActivities>;
