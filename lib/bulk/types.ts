// Bulk renders (POST /api/v1/generate/bulk, issue 35): the contract between the API, the `bulkRender` workflow (id
// `bulk-<bulk id>`) and its activities. Plain data only (the workflow imports this); the archive's entry names are
// in names.ts.
import type { RenderJob } from '../generation/types';

export type BulkStatus = 'running' | 'completed' | 'canceled';

/** The workflow id of a bulk: `bulk-<id>` (also the items' batch id, which the orphan sweep looks for). */
export const bulkWorkflowId = (bulkId: string) => `bulk-${bulkId}`;

/** The signal POST /generate/bulk/<id>/cancel sends after it has refunded what was not rendered. */
export const BULK_CANCEL_SIGNAL = 'cancel';

/** Items the workflow reads per page (its history holds pages of jobs, never one large input). */
export const BULK_PAGE = 50;

export interface BulkWorkflowInput {
  bulkId: string;
  accountId: string;
  /** false for a test-mode bulk; absent means live */
  livemode?: boolean;
  /** how many items render at once (BULK_CONCURRENCY when the bulk was started) */
  concurrency: number;
  /** the callback URL each item's generation.completed/failed goes to (itemWebhooks: true), else null */
  itemWebhookUrl: string | null;
}

/** One item as the workflow reads it: its generation, in the order of the expansion. */
export interface BulkItem {
  position: number;
  generationId: string;
  /** null for an item on a template (its job is kind 'template') */
  garmentId: string | null;
  job: RenderJob;
}

/** Where a bulk stands when its workflow has finished it (archive stored, row closed). */
export interface BulkFinished {
  status: Exclude<BulkStatus, 'running'>;
  total: number;
  completed: number;
  failed: number;
  archiveUrl: string | null;
  tokensCharged: number;
  tokensRefunded: number;
  finishedAt: string;
  /** where bulk.completed goes, or null (always null for an account being deleted) */
  webhookUrl: string | null;
  /** true: the account's deletion was asked for; no archive was kept and no bulk.completed goes out */
  accountDeleted?: true;
}

export interface BulkWorkflowResult {
  bulkId: string;
  status: Exclude<BulkStatus, 'running'>;
  completed: number;
  failed: number;
}

/** Error types of the bulk activities that no retry can fix. */
export const NON_RETRYABLE_BULK_ERRORS = ['BadInputError'];
