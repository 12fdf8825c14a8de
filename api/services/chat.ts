// Design chat use cases: POST /api/chat records and charges the job in one transaction (thread 404,
// balance 402 answer at once), starts the chatDesign workflow (id = the render job id), waits for it up to CHAT_SYNC_TIMEOUT_MS and answers the
// chat resource, or 202 {jobId, status}; GET /api/chat/jobs/<id> answers the same once the job is done; the thread
// list and a thread with its messages. Every answer about a job is built from its records, so the synchronous
// answer and a later GET are the same body.
import type { z } from 'zod';
import { freeTokensAwaitVerification, VERIFY_FOR_FREE_TOKENS } from './verification-gate';
import {
  failAndRefundChatJob,
  getRenderJob,
  getThread,
  insertAndChargeChatJob,
  jobAssets,
  listThreads,
  threadMessages,
  type AssetRow,
  type RenderJobRow,
} from '../../db/chat';
import { forgetRecoveryPoint, type IdempotencyRef, type RecoveryPoint } from '../../db/idempotency';
import { tokenBalance } from '../../db/ledger';
import { GENERATION_FAILED, MODEL_COST, type ChatWorkflowInput, type ProviderName } from '../../lib/chat/types';
import { ACCOUNT_DELETED } from '../../lib/accounts/types';
import { timeId } from '../../lib/ids';
import { within } from '../../lib/wait';
import { fileUrl } from '../../lib/storage';
import { chatDesign } from '../../workflows';
import type { AppDeps } from '../context';
import { createdAtAndId, cursorPage } from '../pagination';
import { ApiError, badRequest, notFound } from '../errors';
import type { chatBody } from '../http/app-schemas';
import type { chatAnswer } from '../http/resources';
import { startCharged } from './charged-start';

/** POST /api/chat's body, as its schema parses it. */
export type ChatPost = z.infer<typeof chatBody>;

export const THREAD_NOT_FOUND = 'Thread not found';
export const JOB_NOT_FOUND = 'Job not found';
export const BALANCE_TOO_LOW = 'Token balance too low';

/** Where a job stands when it is answered: done (the chat resource and the provider that drew it), or running. */
export type ChatOutcome =
  { state: 'completed'; result: ChatResult; provider: ProviderName } | { state: 'running'; jobId: string };

/** The chat resource (spec "Chat request and result"): exactly its fields, as the answer's schema says. */
export type ChatResult = z.infer<typeof chatAnswer>;

const url = (deps: AppDeps, a: AssetRow | undefined) => (a ? fileUrl(deps.config, a.storageKey) : null);

function presentResult(deps: AppDeps, job: RenderJobRow, assets: AssetRow[]): ChatResult {
  return {
    threadId: job.threadId!,
    messageId: job.assistantMessageId!,
    mockups: assets.filter((a) => a.kind === 'mockup').map((a) => fileUrl(deps.config, a.storageKey)),
    graphicUrl: url(
      deps,
      assets.find((a) => a.kind === 'graphic'),
    ),
    printAssetUrl: url(
      deps,
      assets.find((a) => a.kind === 'print'),
    ),
    tokensSpent: job.tokensSpent,
    tokensRemaining: job.tokensRemaining ?? 0,
  };
}

/**
 * A job as it stands: completed with the chat resource, running, or its failure thrown as the ApiError it answers
 * (402 for a job failed for its balance, 400 for bad input, 500 otherwise).
 */
async function outcomeOf(deps: AppDeps, job: RenderJobRow): Promise<ChatOutcome> {
  if (job.status === 'running') return { state: 'running', jobId: job.id };
  if (job.status === 'completed')
    return {
      state: 'completed',
      result: presentResult(deps, job, await jobAssets(deps.sql, job.id)),
      provider: job.provider ?? 'local',
    };
  // only jobs from when the workflow took the debit (the API charges now, and answers 402 before a job exists)
  if (job.failure === 'insufficient_tokens')
    throw await insufficient(deps, job.userId, MODEL_COST[job.model], await tokenBalance(deps.sql, job.userId));
  if (job.failure === 'bad_input') throw badRequest(job.error ?? 'Invalid request');
  if (job.error === ACCOUNT_DELETED) throw accountDeleted();
  throw new ApiError(500, 'internal_error', GENERATION_FAILED);
}

/** 410 (Part B's {error}; no Part A code of its own): the account was deleted while its job ran (failed, and erased or about to be). */
const accountDeleted = () => new ApiError(410, 'not_found', ACCOUNT_DELETED);

/** The 402 of a job the balance does not cover; it says so when the account's Free tokens wait for its email. */
const insufficient = async (deps: AppDeps, userId: string, tokensNeeded: number, tokensAvailable: number) =>
  new ApiError(
    402,
    'insufficient_tokens',
    (await freeTokensAwaitVerification(deps, userId)) ? VERIFY_FOR_FREE_TOKENS : BALANCE_TOO_LOW,
    { tokensNeeded, tokensAvailable },
  );

/**
 * POST /api/chat: the thread (404 when not the user's), then the job row and its debit (the model's cost, reference
 * = job id) in one transaction (402 when the balance is too low: nothing is recorded), then workflow chatDesign
 * (id = job id, AccountId), which refunds the debit if the job fails. Waits up to CHAT_SYNC_TIMEOUT_MS for it. Under
 * an Idempotency-Key (`idempotency`), the job is the key's recovery point, written in that transaction: a request
 * that dies after creating it is answered from that job (chatRecovered), never by a second job.
 */
export async function postChat(
  deps: AppDeps,
  userId: string,
  req: ChatPost,
  log: AppDeps['log'],
  idempotency?: IdempotencyRef,
): Promise<ChatOutcome> {
  if (req.threadId !== null && !(await getThread(deps.sql, req.threadId, userId))) throw notFound(THREAD_NOT_FOUND);
  const jobId = timeId('job');
  const charge = await insertAndChargeChatJob(deps.sql, {
    job: {
      id: jobId,
      userId,
      threadId: req.threadId,
      model: req.model,
      prompt: req.prompt,
      request: { images: req.images, garmentUrls: req.garmentUrls, designUrls: req.designUrls, threadId: req.threadId },
    },
    cost: MODEL_COST[req.model],
    ...(idempotency ? { idempotency } : {}),
  });
  if (!charge.ok) throw await insufficient(deps, userId, charge.required, charge.available);
  deps.metrics?.tokens('debit', MODEL_COST[req.model]);

  const input: ChatWorkflowInput = { ...req, jobId, accountId: userId };
  const handle = await startCharged(
    deps.temporal,
    chatDesign,
    {
      workflowId: jobId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      searchAttributes: { AccountId: [userId] },
    },
    async () => {
      await failAndRefundChatJob(deps.sql, { jobId, error: 'Could not start the job', failure: 'generation_failed' });
      // the job was refunded at once: a retry with the key starts afresh
      if (idempotency) await forgetRecoveryPoint(deps.sql, idempotency);
    },
  );
  log.info('chat job started', { jobId, model: req.model, threadId: req.threadId });
  // A workflow that closes without finishing the job (terminated, timed out) leaves it running: the chat-jobs sweep
  // fails and refunds it. Until then, as when the wait runs out or Temporal cannot be asked, the answer is 202.
  const result = await within(deps.config.chat.syncTimeoutMs, handle.result()).catch((err: unknown) => {
    log.warn('could not wait for the chat job', { jobId, err });
    return undefined;
  });
  const job = await getRenderJob(deps.sql, jobId, userId);
  if (!job) throw accountDeleted(); // the job's row goes only with its account's erasure
  if (result === undefined) return { state: 'running', jobId };
  return outcomeOf(deps, job);
}

/**
 * The answer of a POST /api/chat whose Idempotency-Key holds a job but no stored answer (the request died, or its
 * job failed): the job's answer as it stands now.
 */
export async function chatRecovered(deps: AppDeps, userId: string, point: RecoveryPoint): Promise<ChatOutcome> {
  if (!point.chatJobId) throw notFound(JOB_NOT_FOUND);
  return getChatJob(deps, userId, point.chatJobId);
}

/** GET /api/chat/jobs/<id>: the user's job, answered as POST /api/chat would have once it is done. */
export async function getChatJob(deps: AppDeps, userId: string, jobId: string): Promise<ChatOutcome> {
  const job = await getRenderJob(deps.sql, jobId, userId);
  if (!job) throw notFound(JOB_NOT_FOUND);
  return outcomeOf(deps, job);
}

/** GET /api/chat/threads: newest first, cursor pages. */
export async function chatThreads(deps: AppDeps, userId: string, q: { limit: number; cursor?: string }) {
  const { page, pagination } = await cursorPage(
    { secret: deps.config.appSecret, scope: `chat-threads:${userId}`, codec: createdAtAndId },
    q,
    (after, limit) => listThreads(deps.sql, userId, { after, limit }),
  );
  return {
    threads: page.map((t) => ({
      id: t.id,
      title: t.title,
      messageCount: t.messageCount,
      createdAt: t.createdAt.toISOString(),
      updatedAt: t.updatedAt.toISOString(),
    })),
    pagination,
  };
}

/** GET /api/chat/threads/<id>: the thread and its messages in order, with their images, model and tokens. */
export async function chatThread(deps: AppDeps, userId: string, threadId: string) {
  const thread = await getThread(deps.sql, threadId, userId);
  if (!thread) throw notFound(THREAD_NOT_FOUND);
  const messages = await threadMessages(deps.sql, threadId);
  return {
    id: thread.id,
    title: thread.title,
    createdAt: thread.createdAt.toISOString(),
    updatedAt: thread.updatedAt.toISOString(),
    messages: messages.map((m) => {
      const base = {
        id: m.id,
        role: m.role,
        jobId: m.jobId,
        model: m.model,
        tokens: m.tokensSpent,
        createdAt: m.createdAt.toISOString(),
      };
      if (m.role === 'user') {
        const refs = m.refs;
        return {
          ...base,
          content: m.content,
          images: [
            ...(refs.images ?? []).map((u) => ({ kind: 'reference', url: u })),
            ...(refs.designUrls ?? []).map((u) => ({ kind: 'design', url: u })),
            ...(refs.garmentUrls ?? []).map((u) => ({ kind: 'garment', url: u })),
          ],
        };
      }
      const find = (kind: AssetRow['kind']) => m.assets.find((a) => a.kind === kind);
      return {
        ...base,
        content: null,
        graphicUrl: url(deps, find('graphic')),
        printAssetUrl: url(deps, find('print')),
        mockups: m.assets.filter((a) => a.kind === 'mockup').map((a) => fileUrl(deps.config, a.storageKey)),
        images: m.assets.map((a) => ({
          kind: a.kind,
          url: fileUrl(deps.config, a.storageKey),
          width: a.width,
          height: a.height,
          ...(a.dpi ? { dpi: a.dpi } : {}),
          ...(a.garmentUrl ? { garmentUrl: a.garmentUrl, placement: a.placement } : {}),
        })),
      };
    }),
  };
}
