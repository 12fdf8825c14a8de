// Design chat: render jobs, threads, messages, the files and token usage of a job.
import { sql } from './sql';

export interface RenderJobRow {
  id: string;
  status: string;
  provider: string | null;
  model: string;
  attempts: any[];
  failure: string | null;
  error: string | null;
  timings: Record<string, number>;
  tokensSpent: number;
}

const renderJobColumns = (s: ReturnType<typeof sql>) =>
  s`id, status, provider, model, attempts, failure, error, timings, tokens_spent as "tokensSpent"`;

/** A design-chat job's row. */
export async function renderJob(id: string): Promise<RenderJobRow | undefined> {
  const [row] = await sql()<RenderJobRow[]>`select ${renderJobColumns(sql())} from render_jobs where id = ${id}`;
  return row;
}

/** A user's latest design-chat job. */
export async function latestRenderJob(userId: string): Promise<RenderJobRow | undefined> {
  const [row] = await sql()<RenderJobRow[]>`select ${renderJobColumns(sql())} from render_jobs
    where user_id = ${userId} order by created_at desc limit 1`;
  return row;
}

/** The design-chat jobs of a thread. */
export async function renderJobsOfThread(threadId: string): Promise<RenderJobRow[]> {
  return sql()<RenderJobRow[]>`select ${renderJobColumns(sql())} from render_jobs where thread_id = ${threadId}`;
}

/** How many design-chat jobs a user has. */
export async function renderJobCount(userId: string): Promise<number> {
  const [row] = await sql()<{ n: number }[]>`select count(*)::int as n from render_jobs where user_id = ${userId}`;
  return row!.n;
}

/** The ids of a user's design-chat jobs (of those whose request text holds `needle`, if given). */
export async function renderJobIds(userId: string, needle?: string): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`select id from render_jobs where user_id = ${userId}
    ${needle ? sql()`and strpos(request::text, ${needle}) > 0` : sql()``} order by created_at, id`;
  return rows.map((r) => r.id);
}

/** A design-chat job row as a dead API process would have left it: running, no workflow, made `age` ago. */
export async function insertOrphanRenderJob(o: { id: string; userId: string; prompt: string; age?: string }) {
  await sql()`insert into render_jobs (id, user_id, model, prompt, request, created_at)
    values (${o.id}, ${o.userId}, 'nano-banana', ${o.prompt}, '{}', now() - ${o.age ?? '0 seconds'}::interval)`;
}

/** Ends a design-chat job row as failed (with `failure`, if given). */
export async function failRenderJob(id: string, failure?: string): Promise<void> {
  await sql()`update render_jobs set status = 'failed', failure = ${failure ?? null}, completed_at = now()
    where id = ${id}`;
}

/** Makes a design-chat job created `interval` ago (a Postgres interval), so that the chat-jobs sweep looks at it. */
export async function backdateRenderJob(id: string, interval: string): Promise<void> {
  await sql()`update render_jobs set created_at = now() - ${interval}::interval where id = ${id}`;
}

/** A chat thread's messages in order: [role, content, tokens spent]. */
export async function chatMessages(threadId: string): Promise<[string, string | null, number][]> {
  const rows = await sql()<{ role: string; content: string | null; tokensSpent: number }[]>`
    select role, content, tokens_spent as "tokensSpent" from chat_messages where thread_id = ${threadId} order by seq`;
  return rows.map((m) => [m.role, m.content, m.tokensSpent]);
}

/** The files a design-chat job made (graphic, print, mockups): [kind, position, placement, garment URL]. */
export async function renderAssets(
  by: { jobId: string } | { messageId: string; kind: string },
): Promise<[string, number, string | null, string | null][]> {
  const rows =
    'jobId' in by
      ? await sql()<{ kind: string; position: number; placement: string | null; garmentUrl: string | null }[]>`
          select kind, position, placement, garment_url as "garmentUrl" from render_assets
          where job_id = ${by.jobId} order by kind, position`
      : await sql()<{ kind: string; position: number; placement: string | null; garmentUrl: string | null }[]>`
          select kind, position, placement, garment_url as "garmentUrl" from render_assets
          where kind = ${by.kind} and message_id = ${by.messageId} order by position`;
  return rows.map((a) => [a.kind, a.position, a.placement, a.garmentUrl]);
}

/** The token usage recorded for a design-chat job. */
export async function tokenUsageOfJob(
  jobId: string,
): Promise<{ tokens: number; model: string; debitReference: string }[]> {
  return [
    ...(await sql()<{ tokens: number; model: string; debitReference: string }[]>`
      select tokens, model, debit_reference as "debitReference" from token_usage where job_id = ${jobId}`),
  ];
}

/** The ids of a user's chat threads. */
export async function chatThreadIds(userId: string): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`select id from chat_threads where user_id = ${userId}`;
  return rows.map((r) => r.id);
}

/** What a design-chat job left: threads and jobs of its user, messages, files and usage of the job. */
export async function chatRecordCounts(userId: string, jobId: string) {
  const [row] = await sql()<{ threads: number; messages: number; assets: number; usage: number; jobs: number }[]>`
    select
      (select count(*)::int from chat_threads where user_id = ${userId}) as threads,
      (select count(*)::int from chat_messages where job_id = ${jobId}) as messages,
      (select count(*)::int from render_assets where job_id = ${jobId}) as assets,
      (select count(*)::int from token_usage where job_id = ${jobId}) as usage,
      (select count(*)::int from render_jobs where user_id = ${userId}) as jobs`;
  return row!;
}
