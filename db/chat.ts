// Design chat tables (008_chat.sql): threads, messages, render jobs, render assets, token usage. The API inserts a
// job and takes its debit (reference = job id) in one transaction, as generations are charged; the chatDesign
// workflow's record step writes everything else in one transaction, and its failure step fails the job and refunds
// its debit in one transaction. Both lock the job row and leave a finished job as it is, so a step that runs twice
// (a worker crash, a retry) changes nothing the second time.
import type { ChatFailureReason, ChatModel, ChatRecord, ProviderAttempt, ProviderName } from '../lib/chat/types';
import { timeId } from '../lib/ids';
import type { Sql, Tx } from './client';
import { recordRecoveryPoint, type IdempotencyRef } from './idempotency';
import { debitTokensIn, refundDebitIn, tokenBalance } from './ledger';

export type JobStatus = 'running' | 'completed' | 'failed';

export interface RenderJobRow {
  id: string;
  userId: string;
  threadId: string | null;
  model: ChatModel;
  prompt: string;
  status: JobStatus;
  provider: ProviderName | null;
  attempts: ProviderAttempt[];
  timings: Record<string, number>;
  tokensSpent: number;
  tokensRemaining: number | null;
  error: string | null;
  failure: ChatFailureReason | null;
  userMessageId: string | null;
  assistantMessageId: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

const jobColumns = (sql: Sql) => sql`
  id, user_id as "userId", thread_id as "threadId", model, prompt, status, provider, attempts, timings,
  tokens_spent as "tokensSpent", tokens_remaining as "tokensRemaining", error, failure, user_message_id as "userMessageId",
  assistant_message_id as "assistantMessageId", created_at as "createdAt", completed_at as "completedAt"`;

/** A job as POST /api/chat records it (running), with the request it was made from. */
export type NewRenderJob = Pick<RenderJobRow, 'id' | 'userId' | 'threadId' | 'model' | 'prompt'> & { request: object };

export type ChatChargeResult = { ok: true; balance: number } | { ok: false; required: number; available: number };

/**
 * POST /api/chat's job and its charge in one transaction: the model's cost is debited (reference = job id, under
 * the account's row lock: db/ledger.ts debitTokensIn) and the job row inserted, or nothing is (balance too low). Under an
 * Idempotency-Key the job is recorded as the key's recovery point in the same transaction, and nothing is charged
 * when another request has taken the key over.
 */
export async function insertAndChargeChatJob(
  sql: Sql,
  opts: { job: NewRenderJob; cost: number; idempotency?: IdempotencyRef },
): Promise<ChatChargeResult> {
  const { job, cost, idempotency } = opts;
  return sql.begin(async (tx) => {
    const debit = await debitTokensIn(tx, job.userId, [{ reference: job.id, amount: cost }]);
    if (!debit.ok) return { ok: false as const, required: debit.required, available: debit.available };
    await tx`insert into render_jobs (id, user_id, thread_id, model, prompt, request)
      values (${job.id}, ${job.userId}, ${job.threadId}, ${job.model}, ${job.prompt}, ${tx.json(job.request as never)})`;
    if (idempotency) await recordRecoveryPoint(tx, idempotency, { generationIds: [], chatJobId: job.id });
    return { ok: true as const, balance: debit.balance };
  });
}

/**
 * What the workflow's first step needs of its job, in one statement: its status, whether its debit exists, and the
 * storage key of the graphic of its thread's latest assistant message (what "make it blue" edits). Undefined when
 * there is no such job.
 */
export async function chatJobToStart(
  sql: Sql,
  jobId: string,
): Promise<{ status: JobStatus; charged: boolean; previousGraphicKey: string | null } | undefined> {
  const [row] = await sql<{ status: JobStatus; charged: boolean; previousGraphicKey: string | null }[]>`
    select j.status,
      exists (select 1 from token_debits d where d.reference = j.id) as charged,
      (select a.storage_key
         from chat_messages m join render_assets a on a.message_id = m.id and a.kind = 'graphic'
         where m.thread_id = j.thread_id and m.role = 'assistant'
         order by m.seq desc limit 1) as "previousGraphicKey"
    from render_jobs j where j.id = ${jobId}`;
  return row;
}

export async function getRenderJob(sql: Sql, id: string, userId?: string): Promise<RenderJobRow | undefined> {
  const [row] = await sql<RenderJobRow[]>`
    select ${jobColumns(sql)} from render_jobs where id = ${id} ${userId ? sql`and user_id = ${userId}` : sql``}`;
  return row;
}

export interface ThreadRow {
  id: string;
  userId: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

export async function getThread(sql: Sql, id: string, userId: string): Promise<ThreadRow | undefined> {
  const [row] = await sql<ThreadRow[]>`
    select id, user_id as "userId", title, created_at as "createdAt", updated_at as "updatedAt"
    from chat_threads where id = ${id} and user_id = ${userId}`;
  return row;
}

/** The user's threads, newest first, after the keyset position `after` (exclusive). */
export function listThreads(sql: Sql, userId: string, opts: { after?: { c: string; i: string }; limit: number }) {
  const { after, limit } = opts;
  return sql<(ThreadRow & { messageCount: number; lastMessageAt: Date | null })[]>`
    select t.id, t.user_id as "userId", t.title, t.created_at as "createdAt", t.updated_at as "updatedAt",
      (select count(*)::int from chat_messages m where m.thread_id = t.id) as "messageCount",
      (select max(m.created_at) from chat_messages m where m.thread_id = t.id) as "lastMessageAt"
    from chat_threads t
    where t.user_id = ${userId}
      ${after ? sql`and (t.created_at, t.id) < (${after.c}::timestamptz, ${after.i})` : sql``}
    order by t.created_at desc, t.id desc
    limit ${limit}`;
}

export interface AssetRow {
  jobId: string;
  messageId: string;
  kind: 'graphic' | 'print' | 'mockup';
  position: number;
  storageKey: string;
  mimeType: string;
  width: number;
  height: number;
  bytes: number;
  dpi: number | null;
  garmentUrl: string | null;
  placement: string | null;
}

export interface MessageRow {
  seq: number;
  id: string;
  threadId: string;
  jobId: string;
  role: 'user' | 'assistant';
  content: string | null;
  refs: { images?: string[]; designUrls?: string[]; garmentUrls?: string[] };
  model: ChatModel;
  tokensSpent: number;
  createdAt: Date;
  assets: AssetRow[];
}

const assetColumns = (sql: Sql) => sql`
  job_id as "jobId", message_id as "messageId", kind, position, storage_key as "storageKey", mime_type as "mimeType",
  width, height, bytes, dpi, garment_url as "garmentUrl", placement`;

/** Messages of a thread in order, each with its images (kind order: graphic, print, mockups by position). */
export async function threadMessages(sql: Sql, threadId: string, where: { jobId?: string } = {}) {
  const messages = await sql<Omit<MessageRow, 'assets'>[]>`
    select seq, id, thread_id as "threadId", job_id as "jobId", role, content, refs, model,
      tokens_spent as "tokensSpent", created_at as "createdAt"
    from chat_messages where thread_id = ${threadId} ${where.jobId ? sql`and job_id = ${where.jobId}` : sql``}
    order by seq`;
  if (messages.length === 0) return [];
  const assets = await sql<AssetRow[]>`
    select ${assetColumns(sql)} from render_assets where message_id in ${sql(messages.map((m) => m.id))}
    order by case kind when 'graphic' then 0 when 'print' then 1 else 2 end, position`;
  return messages.map((m) => ({ ...m, assets: assets.filter((a) => a.messageId === m.id) }));
}

const threadTitle = (prompt: string) => {
  const oneLine = prompt.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 80 ? oneLine : `${oneLine.slice(0, 79).trimEnd()}…`;
};

export type RecordOutcome =
  | { status: 'completed'; threadId: string; messageId: string; provider: ProviderName; duplicate: boolean }
  | { status: 'failed' | 'missing' }
  /** the account's deletion was asked for: nothing was recorded (the caller deletes the job's files) */
  | { status: 'account_deleted' };

/** The job row, locked for the transaction: what recording and failing decide on. */
async function lockJob(tx: Tx, jobId: string) {
  const [job] = await tx<
    { status: JobStatus; threadId: string | null; assistantMessageId: string | null; provider: ProviderName }[]
  >`select status, thread_id as "threadId", assistant_message_id as "assistantMessageId", provider
    from render_jobs where id = ${jobId} for update`;
  return job;
}

/** What a completed job recorded, as the record and failure steps answer it. */
const completedAs = (job: NonNullable<Awaited<ReturnType<typeof lockJob>>>) => ({
  status: 'completed' as const,
  threadId: job.threadId!,
  messageId: job.assistantMessageId!,
  provider: job.provider,
});

/**
 * The record step: in one transaction, under the job row's lock, the thread (when new; titled by the prompt), the
 * user and assistant messages, one render asset per output image, the token usage entry, and the job completed
 * with the balance after it. A job already completed answers what it recorded (duplicate: true); a failed or
 * missing one records nothing.
 */
export async function completeChatJob(sql: Sql, r: ChatRecord): Promise<RecordOutcome> {
  return sql.begin(async (tx) => {
    const job = await lockJob(tx, r.jobId);
    if (!job) return { status: 'missing' as const };
    if (job.status === 'completed') return { ...completedAs(job), duplicate: true };
    if (job.status === 'failed') return { status: 'failed' as const };
    // read FOR SHARE: a deletion committing now (it updates this row) is waited for and seen
    const [owner] = await tx<{ deleted: boolean }[]>`
      select deleted_at is not null as deleted from users where id = ${r.accountId} for share`;
    if (!owner || owner.deleted) return { status: 'account_deleted' as const };

    let threadId = r.threadId;
    if (threadId) {
      await tx`update chat_threads set updated_at = now() where id = ${threadId}`;
    } else {
      threadId = timeId('thr');
      await tx`insert into chat_threads (id, user_id, title) values (${threadId}, ${r.accountId}, ${threadTitle(r.prompt)})`;
    }
    const userMessageId = timeId('msg');
    const assistantMessageId = timeId('msg');
    await tx`insert into chat_messages (id, thread_id, user_id, job_id, role, content, refs, model, tokens_spent)
      values (${userMessageId}, ${threadId}, ${r.accountId}, ${r.jobId}, 'user', ${r.prompt}, ${tx.json(r.refs)},
        ${r.model}, 0)`;
    await tx`insert into chat_messages (id, thread_id, user_id, job_id, role, content, refs, model, tokens_spent)
      values (${assistantMessageId}, ${threadId}, ${r.accountId}, ${r.jobId}, 'assistant', null, '{}', ${r.model},
        ${r.tokens})`;
    const assets = [
      {
        kind: 'graphic',
        position: 0,
        key: r.graphic.key,
        mime: r.graphic.mimeType,
        w: r.graphic.width,
        h: r.graphic.height,
        bytes: r.graphic.bytes,
        dpi: null,
        garmentUrl: null,
        placement: null,
      },
      {
        kind: 'print',
        position: 0,
        key: r.print.key,
        mime: 'image/png',
        w: r.print.width,
        h: r.print.height,
        bytes: r.print.bytes,
        dpi: r.print.dpi,
        garmentUrl: null,
        placement: null,
      },
      ...r.mockups.map((m, i) => ({
        kind: 'mockup',
        position: i,
        key: m.key,
        mime: 'image/jpeg',
        w: m.width,
        h: m.height,
        bytes: m.bytes,
        dpi: null,
        garmentUrl: m.garmentUrl,
        placement: m.placement,
      })),
    ];
    for (const a of assets) {
      await tx`insert into render_assets
        (job_id, message_id, kind, position, storage_key, mime_type, width, height, bytes, dpi, garment_url, placement)
        values (${r.jobId}, ${assistantMessageId}, ${a.kind}, ${a.position}, ${a.key}, ${a.mime}, ${a.w}, ${a.h},
          ${a.bytes}, ${a.dpi}, ${a.garmentUrl}, ${a.placement})`;
    }
    await tx`insert into token_usage (user_id, job_id, model, tokens, debit_reference)
      values (${r.accountId}, ${r.jobId}, ${r.model}, ${r.tokens}, ${r.jobId})`;
    const balance = await tokenBalance(tx, r.accountId);
    await tx`update render_jobs set status = 'completed', thread_id = ${threadId}, provider = ${r.graphic.provider},
        attempts = ${tx.json(r.attempts as never)}, timings = ${tx.json(r.timings)}, tokens_spent = ${r.tokens},
        tokens_remaining = ${balance}, user_message_id = ${userMessageId},
        assistant_message_id = ${assistantMessageId}, completed_at = now()
      where id = ${r.jobId}`;
    return {
      status: 'completed' as const,
      threadId,
      messageId: assistantMessageId,
      provider: r.graphic.provider,
      duplicate: false,
    };
  });
}

export type FailOutcome =
  | { status: 'failed'; refunded: boolean; duplicate: boolean }
  | { status: 'completed'; threadId: string; messageId: string; provider: ProviderName }
  | { status: 'missing' };

/**
 * The failure step: in one transaction, under the job row's lock, the debit keyed by the job id is refunded (once:
 * grant refund:<job id>; nothing when no debit was taken) and the job marked failed with its attempts. A job that
 * completed after all (its record step committed before a crash) stays completed; one already failed is left as it
 * is. Also used by the chat-jobs sweep for a job whose workflow ended without finishing it, and by the API when the
 * job's workflow could not be started.
 */
export async function failAndRefundChatJob(
  sql: Sql,
  f: {
    jobId: string;
    error: string;
    failure: ChatFailureReason;
    /** omitted (the sweep, the API): the job keeps what it had */
    attempts?: ProviderAttempt[];
    timings?: Record<string, number>;
  },
): Promise<FailOutcome> {
  return sql.begin(async (tx) => {
    const job = await lockJob(tx, f.jobId);
    if (!job) return { status: 'missing' as const };
    if (job.status === 'completed') return completedAs(job);
    if (job.status === 'failed') return { status: 'failed' as const, refunded: false, duplicate: true };
    const refunded = await refundDebitIn(tx, f.jobId);
    await tx`update render_jobs set status = 'failed', error = ${f.error.slice(0, 2000)}, failure = ${f.failure},
        attempts = ${f.attempts ? tx.json(f.attempts as never) : tx`attempts`},
        timings = ${f.timings ? tx.json(f.timings) : tx`timings`}, tokens_spent = 0,
        completed_at = now()
      where id = ${f.jobId}`;
    return { status: 'failed' as const, refunded, duplicate: false };
  });
}

/** The job's assets (for presenting a completed job). */
export function jobAssets(sql: Sql, jobId: string) {
  return sql<AssetRow[]>`
    select ${assetColumns(sql)} from render_assets where job_id = ${jobId}
    order by case kind when 'graphic' then 0 when 'print' then 1 else 2 end, position`;
}

/**
 * Jobs still `running` `olderThanMs` after they were created (index render_jobs_running_idx), oldest first, after
 * the keyset position `after`: what the chat-jobs sweep checks against their workflows.
 */
export function staleRunningChatJobs(
  sql: Sql,
  opts: { olderThanMs: number; after?: { c: string; i: string }; limit: number },
) {
  const { olderThanMs, after, limit } = opts;
  // created_at as text: the keyset keeps PostgreSQL's microseconds (a Date would round them to milliseconds)
  return sql<{ id: string; userId: string; createdAt: string }[]>`
    select id, user_id as "userId", created_at::text as "createdAt" from render_jobs
    where status = 'running' and created_at < now() - make_interval(secs => ${olderThanMs / 1000})
      ${after ? sql`and (created_at, id) > (${after.c}::timestamptz, ${after.i})` : sql``}
    order by created_at, id
    limit ${limit}`;
}
