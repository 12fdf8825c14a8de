// The request log's retention (docs/test-mode.md): run by the hourly maintenance sweep.
import type { Sql } from '../db/client';
import { purgeRequestLog } from '../db/request-log';
import type { Logger } from '../lib/log';

export function createRequestLogActivities({ sql, log }: { sql: Sql; log: Logger }) {
  return {
    /** Deletes request-log entries older than 30 days or beyond the 1,000 newest of a key; idempotent. */
    async purgeRequestLog(): Promise<number> {
      const n = await purgeRequestLog(sql);
      if (n > 0) log.info('request log purged', { entries: n });
      return n;
    },
  };
}
