// Design chat use cases (issue 13): POST /api/chat starts the chatDesign workflow (id = the render job id) after the
// checks that answer at once (thread 404, balance 402), waits for it up to CHAT_SYNC_TIMEOUT_MS and answers the
// chat resource, or 202 {jobId, status}; GET /api/chat/jobs/<id> answers the same once the job is done; the thread
// list and a thread with its messages. Every answer about a job is built from its records, so the synchronous
// answer and a later GET are the same body.
import { freeTokensAwaitVerification, VERIFY_FOR_FREE_TOKENS } from './verification-gate';
import { WorkflowFailedError } from '@temporalio/client';
import {
  failChatJob,
  getRenderJob,
  getThread,
  insertRenderJob,
  jobAssets,
  listThreads,
  threadMessages,
  type AssetRow,
  type RenderJobRow,
} from '../../db/chat';
import {
  forgetRecoveryPoint,
  recordRecoveryPoint,
  type IdempotencyRef,
  type RecoveryPoint,
} from '../../db/idempotency';
import { tokenBalance } from '../../db/ledger';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { GENERATION_FAILED, MODEL_COST, type ChatRequest, type ChatWorkflowInput } from '../../lib/chat/types';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import { chatDesign } from '../../workflows';
import type { AppDeps } from '../context';
import { ApiError, badRequest, notFound } from '../errors';

export const THREAD_NOT_FOUND = 'Thread not found';
export const JOB_NOT_FOUND = 'Job not found';
export const BALANCE_TOO_LOW = 'Token balance too low';

/** What a route sends: status, body and headers. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The chat resource (spec "Chat request and result"): exactly its fields. */
export interface ChatResult {
  threadId: string;
  messageId: string;
  mockups: string[];
  graphicUrl: string | null;
  printAssetUrl: string | null;
  tokensSpent: number;
  tokensRemaining: number;
}

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

/** The answer for a job as it stands: 200 with the chat resource, 202 while running, the job's error otherwise. */
async function answerFor(deps: AppDeps, job: RenderJobRow, known?: { tokensAvailable?: number }): Promise<Answer> {
  if (job.status === 'running') return { status: 202, body: { jobId: job.id, status: 'running' } };
  if (job.status === 'completed') {
    return {
      status: 200,
      body: presentResult(deps, job, await jobAssets(deps.sql, job.id)),
      headers: { 'X-Image-Provider': job.provider ?? 'local' },
    };
  }
  if (job.failure === 'insufficient_tokens')
    return {
      status: 402,
      body: {
        error: BALANCE_TOO_LOW,
        tokensNeeded: MODEL_COST[job.model],
        tokensAvailable: known?.tokensAvailable ?? (await tokenBalance(deps.sql, job.userId)),
      },
    };
  if (job.failure === 'bad_input') return { status: 400, body: { error: job.error ?? 'Invalid request' } };
  return { status: 500, body: { error: GENERATION_FAILED } };
}

/** Waits for a promise up to `ms`; undefined when the time ran out first. */
async function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  p.catch(() => {});
  try {
    return await Promise.race([p, budget]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POST /api/chat: the thread (404 when not the user's), the balance against the model's cost (402), the job row,
 * then workflow chatDesign (id = job id, AccountId). Waits up to CHAT_SYNC_TIMEOUT_MS for it. Under an
 * Idempotency-Key (`idempotency`), the job is the key's recovery point, written with the job row: a request that
 * dies after creating it is answered from that job (chatRecovered), never by a second job.
 */
export async function postChat(
  deps: AppDeps,
  userId: string,
  req: ChatRequest,
  log: AppDeps['log'],
  idempotency?: IdempotencyRef,
): Promise<Answer> {
  if (req.threadId !== null && !(await getThread(deps.sql, req.threadId, userId))) throw notFound(THREAD_NOT_FOUND);
  const cost = MODEL_COST[req.model];
  const balance = await tokenBalance(deps.sql, userId);
  if (balance < cost)
    throw new ApiError(
      402,
      'insufficient_tokens',
      (await freeTokensAwaitVerification(deps, userId)) ? VERIFY_FOR_FREE_TOKENS : BALANCE_TOO_LOW,
      { tokensNeeded: cost, tokensAvailable: balance },
    );

  const jobId = timeId('job');
  const row = {
    id: jobId,
    userId,
    threadId: req.threadId,
    model: req.model,
    prompt: req.prompt,
    request: { images: req.images, garmentUrls: req.garmentUrls, designUrls: req.designUrls, threadId: req.threadId },
  };
  if (idempotency)
    await deps.sql.begin(async (tx) => {
      await insertRenderJob(tx, row);
      await recordRecoveryPoint(
        tx,
        idempotency,
        { generationIds: [], chatJobId: jobId },
        deps.config.idempotency.lockMs,
      );
    });
  else await insertRenderJob(deps.sql, row);
  const input: ChatWorkflowInput = { ...req, jobId, accountId: userId };
  let handle;
  try {
    handle = await deps.temporal.workflow.start(chatDesign, {
      workflowId: jobId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      searchAttributes: { AccountId: [userId] },
    });
  } catch (err) {
    // nothing was debited (the workflow's first step debits): the job is simply failed
    await deps.sql`update render_jobs set status = 'failed', failure = 'generation_failed',
      error = 'Could not start the job', completed_at = now() where id = ${jobId} and status = 'running'`;
    // nothing ran under the key either: a retry with it starts afresh
    if (idempotency) await forgetRecoveryPoint(deps.sql, idempotency);
    throw err;
  }
  log.info('chat job started', { jobId, model: req.model, threadId: req.threadId });
  const result = await within(deps.config.chat.syncTimeoutMs, handle.result()).catch(async (err: unknown) => {
    // The workflow closed without finishing the job (it records every failure it meets, so only if its failure
    // step ran out of attempts, or it was terminated or timed out): the job is failed and its debit refunded here,
    // as the chat-jobs sweep would. Any other error (Temporal unreachable) leaves the job to run: 202.
    if (!(err instanceof WorkflowFailedError)) {
      log.warn('could not wait for the chat job', { jobId, err });
      return undefined;
    }
    log.error('chat workflow failed', { jobId, err });
    await failChatJob(deps.sql, {
      jobId,
      error: `The job's workflow failed: ${err.message}`,
      failure: 'generation_failed',
    });
    return 'workflow_failed' as const;
  });
  const job = (await getRenderJob(deps.sql, jobId, userId))!;
  if (result === undefined || job.status === 'running') return { status: 202, body: { jobId, status: 'running' } };
  const failed = result !== 'workflow_failed' && result.status === 'failed' ? result : undefined;
  return answerFor(deps, job, failed ? { tokensAvailable: failed.tokensAvailable } : undefined);
}

/**
 * The answer of a POST /api/chat whose Idempotency-Key holds a job but no stored answer (the request died, or its
 * job failed): the job's answer as it stands now.
 */
export async function chatRecovered(deps: AppDeps, userId: string, point: RecoveryPoint): Promise<Answer> {
  if (!point.chatJobId) throw notFound(JOB_NOT_FOUND);
  return getChatJob(deps, userId, point.chatJobId);
}

/** GET /api/chat/jobs/<id>: the user's job, answered as POST /api/chat would have once it is done. */
export async function getChatJob(deps: AppDeps, userId: string, jobId: string): Promise<Answer> {
  const job = await getRenderJob(deps.sql, jobId, userId);
  if (!job) throw notFound(JOB_NOT_FOUND);
  return answerFor(deps, job);
}

const threadScope = (userId: string) => `chat-threads:${userId}`;

/** GET /api/chat/threads: newest first, cursor pages. */
export async function chatThreads(deps: AppDeps, userId: string, q: { limit: number; cursor?: string }) {
  let after: { c: string; i: string } | undefined;
  if (q.cursor !== undefined) {
    const c = decodeCursor<{ c: unknown; i: unknown }>(q.cursor, deps.config.appSecret, threadScope(userId));
    if (!c || typeof c.c !== 'string' || typeof c.i !== 'string')
      throw badRequest('Invalid cursor: pass nextCursor from the previous page unchanged');
    after = { c: c.c, i: c.i };
  }
  const rows = await listThreads(deps.sql, userId, { after, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const hasMore = rows.length > q.limit;
  return {
    threads: page.map((t) => ({
      id: t.id,
      title: t.title,
      messageCount: t.messageCount,
      createdAt: t.createdAt.toISOString(),
      updatedAt: t.updatedAt.toISOString(),
    })),
    pagination: {
      hasMore,
      nextCursor:
        hasMore && last
          ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }, deps.config.appSecret, threadScope(userId))
          : null,
    },
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
