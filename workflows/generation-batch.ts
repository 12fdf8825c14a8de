// A batch of generations of one design (POST /generate/batch), id `batch-<first generation id>`. Each item runs the
// `generation` workflow's own orchestration (begin -> render, or refund -> failed, and the completion callback) as
// a function inside this one workflow, all items side by side: every item is charged,
// rendered, refunded on failure and called back exactly like a single generation, with the same activities,
// timeouts and retries, and each item's result is its generation row (GET /generations/<id>).
//
// Why not a child workflow per item: measured on the 2-core target, a child per item costs the Temporal server and
// the worker more than a single POST /generate does (a workflow execution each, plus the parent's child events),
// so a batch of children was no faster than single calls. Running the items' activities in one workflow shares
// the workflow tasks and skips N workflow executions: about 1.5-1.9x the mockups per second of single calls (see
// docs/benchmarks.md). The price: items have no workflow of their own in the Temporal UI (their steps are local
// activity markers in this workflow's history, each result naming its generation's mockup), so the maintenance
// sweep, which fails and refunds generations still `pending` after 10 minutes without a workflow of their id, would
// also take a batch whose workflow has not run for 10 minutes (worker down): those items end failed and refunded,
// never charged twice.
//
// The API has charged every item before this starts (one transaction), and each item carries its render job (as a
// single generation's input does): the render step starts at once and checks the item's debit beside it.
// The worker's local activity slots and compositing gate bound the real parallelism; its design cache decodes the
// shared design once for all items.
import { log } from '@temporalio/workflow';
import type { GenerationBatchInput, GenerationBatchResult } from '../lib/generation/types';
import { generation } from './generation';

export async function generationBatch(input: GenerationBatchInput): Promise<GenerationBatchResult> {
  const results = await Promise.all(
    input.items.map(async (item) => {
      try {
        const r = await generation({
          generationId: item.generationId,
          accountId: input.accountId,
          garmentId: item.garmentId,
          webhookUrl: input.webhookUrl,
          ...(input.livemode === false ? { livemode: false } : {}),
          ...(item.job ? { job: item.job } : {}),
        });
        return { generationId: item.generationId, ...r };
      } catch (err) {
        // generation() turns every activity failure into a `failed` result (with its refund) itself; this is only
        // reached by something unexpected (e.g. the callback workflow could not start). The item's row tells the truth.
        const error = err instanceof Error ? err.message : String(err);
        log.error('batch item did not finish', { batchId: input.batchId, generationId: item.generationId, error });
        return { generationId: item.generationId, status: 'failed' as const, error };
      }
    }),
  );
  return { batchId: input.batchId, results };
}
