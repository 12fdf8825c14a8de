// The promises a chaos run checks once everything has settled, each as one row of the report: what was checked,
// how many, and every violation found (with ids, so a failing seed can be looked into).
import type { Client } from '@temporalio/client';
import type { Sql } from '../../db/client';
import { tokenBalance } from '../../db/ledger';
import type { CallRecord, LoadLedger } from './load';
import type { ReceivedAttempt } from './receiver';

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** what was looked at, e.g. "212 generations: 198 completed, 14 failed (14 refunded)" */
  checked: string;
  violations: string[];
}

/** A span of time during which something was down: [from, to] in epoch ms. */
export interface Window {
  what: string;
  /** the API process index, for API kills */
  api?: number;
  from: number;
  to: number;
}

const result = (name: string, checked: string, violations: string[]): InvariantResult => ({
  name,
  ok: violations.length === 0,
  checked,
  violations,
});

const first = (xs: string[], n = 8) => (xs.length > n ? [...xs.slice(0, n), `… and ${xs.length - n} more`] : xs);

/** Every accepted generation completed exactly once, or failed with its token refunded; none left unfinished. */
export async function checkGenerations(sql: Sql, users: string[], ledger: LoadLedger): Promise<InvariantResult> {
  const rows = await sql<
    {
      id: string;
      status: string;
      mockupKey: string | null;
      debits: number;
      debited: number;
      refunds: number;
      refunded: number;
    }[]
  >`
    select g.id, g.status, g.mockup_key as "mockupKey",
      (select count(*)::int from token_debits d where d.reference = g.id) as debits,
      (select coalesce(sum(d.amount), 0)::int from token_debits d where d.reference = g.id) as debited,
      (select count(*)::int from token_grants r where r.reference = 'refund:' || g.id) as refunds,
      (select coalesce(sum(r.amount), 0)::int from token_grants r where r.reference = 'refund:' || g.id) as refunded
    from generations g where g.user_id = any(${users})`;
  const v: string[] = [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  let completed = 0;
  let failed = 0;
  let refundedN = 0;
  for (const r of rows) {
    if (r.status === 'completed') {
      completed++;
      if (r.debits !== 1 || r.debited !== 1) v.push(`${r.id} completed with ${r.debits} debit(s) of ${r.debited}`);
      if (r.refunds !== 0) v.push(`${r.id} completed but refunded`);
      if (!r.mockupKey) v.push(`${r.id} completed without a mockup`);
    } else if (r.status === 'failed') {
      failed++;
      if (r.debits > 0) {
        if (r.refunds !== 1 || r.refunded !== r.debited)
          v.push(`${r.id} failed: debited ${r.debited}, refunded ${r.refunded} in ${r.refunds} grant(s)`);
        else refundedN++;
      }
    } else v.push(`${r.id} left ${r.status}`);
  }
  for (const [id] of ledger.generations) if (!byId.has(id)) v.push(`${id} was accepted but is not recorded`);
  return result(
    'every accepted generation completed once or failed with a refund',
    `${ledger.generations.size} accepted (${rows.length} recorded, ${ledger.unanswered} requests cut off): ${completed} completed, ${failed} failed (${refundedN} refunded)`,
    first(v),
  );
}

/** What is still in flight for `users`: unfinished generations, running chat jobs, pending callbacks, inbound events. */
export async function inFlightCounts(sql: Sql, users: string[]) {
  const [s] = await sql<{ gens: number; jobs: number; deliveries: number; stripe: number; shopify: number }[]>`select
    (select count(*)::int from generations where user_id = any(${users}) and status in ('pending', 'processing')) as gens,
    (select count(*)::int from render_jobs where user_id = any(${users}) and status = 'running') as jobs,
    (select count(*)::int from webhook_deliveries where user_id = any(${users}) and status = 'pending') as deliveries,
    (select count(*)::int from stripe_events where status = 'received') as stripe,
    (select count(*)::int from shopify_webhooks where status = 'received') as shopify`;
  return s!;
}

/** The ledger balances for every account of the run. */
export async function checkLedger(sql: Sql, users: string[]): Promise<InvariantResult> {
  const v: string[] = [];
  const sums = await sql<{ userId: string; grants: number; expired: number; debits: number; allocations: number }[]>`
    select u.id as "userId",
      (select coalesce(sum(amount), 0)::int from token_grants g where g.user_id = u.id) as grants,
      (select count(*)::int from token_grants g where g.user_id = u.id and g.expires_at <= now()) as expired,
      (select coalesce(sum(amount), 0)::int from token_debits d where d.user_id = u.id) as debits,
      (select coalesce(sum(a.amount), 0)::int from token_allocations a join token_debits d on d.id = a.debit_id
        where d.user_id = u.id) as allocations
    from users u where u.id = any(${users})`;
  for (const s of sums) {
    const balance = await tokenBalance(sql, s.userId);
    if (s.expired > 0) v.push(`${s.userId}: ${s.expired} grant(s) expired during the run (balance check skipped)`);
    else if (s.grants - s.allocations !== balance)
      v.push(`${s.userId}: grants ${s.grants} - allocations ${s.allocations} != balance ${balance}`);
    if (s.allocations !== s.debits) v.push(`${s.userId}: debits ${s.debits} but allocations ${s.allocations}`);
    if (balance < 0) v.push(`${s.userId}: negative balance ${balance}`);
  }
  const overspent = await sql<{ id: number; amount: number; spent: number }[]>`
    select g.id, g.amount, sum(a.amount)::int as spent from token_grants g join token_allocations a on a.grant_id = g.id
    where g.user_id = any(${users}) group by g.id having sum(a.amount) > g.amount`;
  for (const o of overspent) v.push(`grant ${o.id}: ${o.spent} allocated from ${o.amount}`);
  const partial = await sql<{ id: number; amount: number; allocated: number }[]>`
    select d.id, d.amount, coalesce(sum(a.amount), 0)::int as allocated from token_debits d
    left join token_allocations a on a.debit_id = d.id where d.user_id = any(${users})
    group by d.id having coalesce(sum(a.amount), 0) <> d.amount`;
  for (const p of partial) v.push(`debit ${p.id} of ${p.amount} allocated ${p.allocated}`);
  const dupes = await sql<{ reference: string; n: number }[]>`
    select reference, count(*)::int as n from (
      select reference from token_grants where user_id = any(${users})
      union all select reference from token_debits where user_id = any(${users})) r
    group by reference having count(*) > 1`;
  for (const d of dupes) v.push(`reference ${d.reference} used ${d.n} times`);
  const [c] = await sql<{ grants: number; debits: number }[]>`
    select (select count(*)::int from token_grants where user_id = any(${users})) as grants,
           (select count(*)::int from token_debits where user_id = any(${users})) as debits`;
  return result(
    'ledger: grants - allocations = balance, none negative, no reference twice',
    `${sums.length} accounts, ${c!.grants} grants, ${c!.debits} debits`,
    first(v),
  );
}

/**
 * Every completed generation with a webhookUrl, and every failed one the API had accepted (answered with its id),
 * delivered: one delivery id, valid signatures, the same body on every attempt, none left retrying. A generation whose
 * request got no answer or a 5xx (its API killed, a dependency down) and that was then failed and refunded by the API
 * or the maintenance sweep was never accepted: no callback is owed.
 */
export async function checkWebhooks(
  sql: Sql,
  users: string[],
  attempts: ReceivedAttempt[],
  ledger: LoadLedger,
): Promise<InvariantResult> {
  const v: string[] = [];
  const gens = await sql<{ id: string; status: string; deliveryId: string | null; deliveryStatus: string | null }[]>`
    select g.id, g.status, d.id as "deliveryId", d.status as "deliveryStatus"
    from generations g left join webhook_deliveries d on d.generation_id = g.id
    where g.user_id = any(${users}) and g.webhook_url is not null and g.status in ('completed', 'failed')`;
  const byGen = new Map<string, ReceivedAttempt[]>();
  for (const a of attempts) {
    if (a.signature !== 'valid')
      v.push(`attempt for ${a.generationId ?? '?'} (${a.deliveryId}): signature ${a.signature}`);
    if (!a.generationId) continue;
    (byGen.get(a.generationId) ?? byGen.set(a.generationId, []).get(a.generationId)!).push(a);
  }
  let delivered = 0;
  let retried = 0;
  let notAccepted = 0;
  for (const g of gens) {
    const got = byGen.get(g.id) ?? [];
    if (g.status === 'failed' && !ledger.generations.has(g.id) && got.length === 0 && !g.deliveryId) {
      notAccepted++;
      continue;
    }
    const want = g.status === 'completed' ? 'generation.completed' : 'generation.failed';
    if (g.deliveryStatus !== 'delivered')
      v.push(`${g.id}: delivery ${g.deliveryId ?? '(none)'} is ${g.deliveryStatus}`);
    if (!got.some((a) => a.answered === 200)) {
      v.push(`${g.id}: never delivered (${got.length} attempts)`);
      continue;
    }
    delivered++;
    if (got.length > 1) retried++;
    const ids = new Set(got.map((a) => a.deliveryId));
    if (ids.size !== 1 || (g.deliveryId && !ids.has(g.deliveryId)))
      v.push(`${g.id}: delivery ids ${[...ids].join(', ')} (recorded ${g.deliveryId})`);
    if (new Set(got.map((a) => a.bodySha)).size !== 1) v.push(`${g.id}: the body changed between attempts`);
    if (got.some((a) => a.event !== want)) v.push(`${g.id} is ${g.status} but was announced as ${got[0]!.event}`);
  }
  const known = new Set(gens.map((g) => g.id));
  for (const id of byGen.keys()) if (!known.has(id)) v.push(`callback for ${id}, which is not a finished generation`);
  const [open] = await sql<{ n: number }[]>`
    select count(*)::int as n from webhook_deliveries where user_id = any(${users}) and status <> 'delivered'`;
  if (open!.n > 0) v.push(`${open!.n} deliveries not delivered (pending or failed)`);
  return result(
    'webhooks delivered, same delivery id each attempt, valid signatures, none retrying',
    `${gens.length - notAccepted} finished generations owing a callback (${notAccepted} failed before being accepted), ${attempts.length} attempts received, ${delivered} delivered (${retried} after retries)`,
    first(v),
  );
}

/** Every verified Stripe event granted at most once and none lost. */
export async function checkStripe(sql: Sql, ledger: LoadLedger, runs: Map<string, number>): Promise<InvariantResult> {
  const v: string[] = [];
  const ids = ledger.stripe.map((s) => s.eventId);
  const rows = await sql<{ id: string; status: string }[]>`select id, status from stripe_events where id = any(${ids})`;
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const grants = await sql<{ reference: string; userId: string; amount: number; n: number }[]>`
    select reference, min(user_id) as "userId", sum(amount)::int as amount, count(*)::int as n from token_grants
    where reference = any(${ledger.stripe.map((s) => `stripe-checkout:${s.sessionId}`)}) group by reference`;
  const byRef = new Map(grants.map((g) => [g.reference, g]));
  let redelivered = 0;
  for (const s of ledger.stripe) {
    if (s.acks > 1) redelivered++;
    if (s.acks === 0) v.push(`${s.eventId}: never acknowledged after ${s.attempts} attempts`);
    if (status.get(s.eventId) !== 'processed') v.push(`${s.eventId}: ${status.get(s.eventId) ?? 'not stored'}`);
    const g = byRef.get(`stripe-checkout:${s.sessionId}`);
    if (!g) v.push(`${s.eventId}: no grant`);
    else if (g.n !== 1 || g.amount !== s.tokens || g.userId !== s.userId)
      v.push(`${s.eventId}: ${g.n} grant(s) of ${g.amount} to ${g.userId}, expected one of ${s.tokens} to ${s.userId}`);
    const completedRuns = runs.get(`stripe-event-${s.eventId}`) ?? 0;
    if (completedRuns > 1) v.push(`${s.eventId}: its workflow completed ${completedRuns} times`);
  }
  return result(
    'each Stripe event granted at most once, none lost',
    `${ledger.stripe.length} events (${redelivered} redelivered), ${ledger.stripe.reduce((a, s) => a + s.attempts, 0)} posts`,
    first(v),
  );
}

/** Every Shopify webhook id processed once; every order recorded once. */
export async function checkShopify(sql: Sql, ledger: LoadLedger, runs: Map<string, number>): Promise<InvariantResult> {
  const v: string[] = [];
  const ids = ledger.shopify.map((s) => s.webhookId);
  const rows = await sql<
    { id: string; status: string }[]
  >`select id, status from shopify_webhooks where id = any(${ids})`;
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const orders = await sql<{ gid: string; n: number; status: string }[]>`
    select shopify_order_id as gid, count(*)::int as n, max(status) as status from shopify_orders
    where shopify_order_id = any(${[...new Set(ledger.shopify.map((s) => s.orderGid))]}) group by shopify_order_id`;
  const byGid = new Map(orders.map((o) => [o.gid, o]));
  let redelivered = 0;
  for (const s of ledger.shopify) {
    if (s.acks > 1) redelivered++;
    if (s.acks === 0) v.push(`${s.webhookId} (${s.topic}): never acknowledged after ${s.attempts} attempts`);
    if (status.get(s.webhookId) !== 'processed') v.push(`${s.webhookId}: ${status.get(s.webhookId) ?? 'not stored'}`);
    const completedRuns = runs.get(`shopify-webhook-${s.webhookId}`) ?? 0;
    if (completedRuns > 1) v.push(`${s.webhookId}: its workflow completed ${completedRuns} times`);
  }
  const paid = new Set(ledger.shopify.filter((s) => s.topic === 'orders/paid').map((s) => s.orderGid));
  for (const gid of new Set(ledger.shopify.map((s) => s.orderGid))) {
    const o = byGid.get(gid);
    if (!o) v.push(`order ${gid} not recorded`);
    else if (o.n !== 1) v.push(`order ${gid} recorded ${o.n} times`);
    else if (paid.has(gid) && o.status !== 'paid') v.push(`order ${gid} is ${o.status} after orders/paid`);
  }
  return result(
    'each Shopify webhook processed once, each order recorded once',
    `${ledger.shopify.length} webhooks (${redelivered} redelivered) for ${byGid.size} orders`,
    first(v),
  );
}

/** Every chat job completed with its debit, or failed with its debit refunded; none left running. */
export async function checkChat(sql: Sql, ledger: LoadLedger): Promise<InvariantResult> {
  const v: string[] = [];
  const rows = await sql<
    { id: string; status: string; debits: number; refunds: number; usage: number; spent: number; debited: number }[]
  >`
    select j.id, j.status, j.tokens_spent as spent,
      (select count(*)::int from token_debits d where d.reference = j.id) as debits,
      (select coalesce(sum(d.amount), 0)::int from token_debits d where d.reference = j.id) as debited,
      (select count(*)::int from token_grants r where r.reference = 'refund:' || j.id) as refunds,
      (select count(*)::int from token_usage u where u.job_id = j.id) as usage
    from render_jobs j where j.user_id = any(${[...ledger.chat.userIds]})`;
  let completed = 0;
  let failed = 0;
  for (const r of rows) {
    if (r.status === 'completed') {
      completed++;
      if (r.debits !== 1 || r.refunds !== 0 || r.usage !== 1 || r.debited !== r.spent)
        v.push(
          `${r.id} completed: ${r.debits} debit(s) of ${r.debited}, ${r.refunds} refund(s), ${r.usage} usage row(s)`,
        );
    } else if (r.status === 'failed') {
      failed++;
      if (r.debits !== r.refunds) v.push(`${r.id} failed: ${r.debits} debit(s), ${r.refunds} refund(s)`);
    } else v.push(`${r.id} left ${r.status}`);
  }
  if (rows.length < ledger.chat.accepted) v.push(`${ledger.chat.accepted} accepted but ${rows.length} recorded`);
  return result(
    'every chat job completed with its debit or failed with a refund',
    `${ledger.chat.sent} requests, ${ledger.chat.accepted} accepted, ${rows.length} jobs: ${completed} completed, ${failed} failed`,
    first(v),
  );
}

/** Completed runs per workflow id (a second completed run of one id would mean the work was done twice). */
export async function completedRuns(client: Client): Promise<Map<string, number>> {
  const runs = new Map<string, number>();
  for await (const w of client.workflow.list({ query: 'ExecutionStatus = "Completed"' }))
    runs.set(w.workflowId, (runs.get(w.workflowId) ?? 0) + 1);
  return runs;
}

/**
 * No workflow left running, none completed twice for one id, none closed without completing (failed, timed out,
 * terminated, cancelled); the schedules' own sweeps aside.
 */
export async function checkWorkflows(client: Client, runs: Map<string, number>): Promise<InvariantResult> {
  const v: string[] = [];
  const open: string[] = [];
  for await (const w of client.workflow.list({ query: 'ExecutionStatus = "Running"' }))
    if (!/^(maintenance-sweep|inbound-events-sweep|chat-jobs-sweep)/.test(w.workflowId))
      open.push(`${w.type} ${w.workflowId}`);
  for (const o of open) v.push(`still running: ${o}`);
  let total = 0;
  for (const [id, n] of runs) {
    if (/^(maintenance-sweep|inbound-events-sweep|chat-jobs-sweep|chaos-)/.test(id)) continue;
    total += n;
    if (n > 1) v.push(`${id} completed ${n} times`);
  }
  // A run that failed, timed out, was terminated or cancelled is work the service did not finish: a violation.
  // (Continued-as-new runs are a run handing over to its next one, not an outcome.)
  const failedRuns: string[] = [];
  for await (const w of client.workflow.list({
    query: 'ExecutionStatus != "Running" AND ExecutionStatus != "Completed" AND ExecutionStatus != "ContinuedAsNew"',
  }))
    failedRuns.push(`${w.type} ${w.workflowId} ${w.status.name}`);
  for (const f of failedRuns)
    if (!/ (maintenance-sweep|inbound-events-sweep)/.test(f)) v.push(`closed without completing: ${f}`);
  return result(
    'no workflow left running, completed twice or closed without completing',
    `${total} completed runs, ${open.length} open, ${failedRuns.length} closed otherwise${failedRuns.length ? ` (${first(failedRuns, 3).join('; ')})` : ''}`,
    first(v),
  );
}

/**
 * No 5xx and no dropped connection except from an API while it was being killed, or a 503 with Retry-After (the API
 * saying "retry": docs/chaos.md) while PostgreSQL or Temporal was restarting. Any other 5xx (a 500, a 503 outside a
 * restart) and any request dropped by an API that was not being killed is a violation.
 */
export function checkHttp(records: CallRecord[], windows: Window[], start: number): InvariantResult {
  const v: string[] = [];
  const overlaps = (r: CallRecord, w: Window) => r.t0 <= w.to && r.t1 >= w.from;
  let killed = 0;
  let retryable = 0;
  let fiveXx = 0;
  let dropped = 0;
  for (const r of records) {
    if (r.status !== null && r.status < 500) continue;
    if (r.status === null) dropped++;
    else fiveXx++;
    if (windows.some((w) => w.what === 'api killed' && w.api === r.api && overlaps(r, w))) {
      killed++;
      continue;
    }
    const during = [...new Set(windows.filter((w) => w.what !== 'api killed' && overlaps(r, w)).map((w) => w.what))];
    const dependency = during.some((d) => d === 'PostgreSQL restart' || d === 'Temporal restart');
    if (r.status === 503 && r.retryAfter && dependency) {
      retryable++;
      continue;
    }
    v.push(
      `${r.route} on ${r.api < 0 ? 'the load balancer' : `api-${r.api + 1}`} at +${((r.t0 - start) / 1000).toFixed(1)} s: ${r.status ?? r.error}${during.length ? ` (during ${during.join(', ')})` : ''}`,
    );
  }
  return result(
    'no 5xx or dropped request but from an API being killed or a 503 to retry during a restart',
    `${records.length} requests; ${fiveXx} 5xx, ${dropped} unanswered; ${killed} from an API being killed, ${retryable} 503 + Retry-After during a PostgreSQL/Temporal restart`,
    first(v, 12),
  );
}

/**
 * No API or worker died on its own. A process that failed to start while PostgreSQL or Temporal was down (and was
 * started again by the cluster, as a process manager would) is not a crash.
 */
export function checkProcesses(
  exits: { name: string; at: number; code: number | null; signal: string | null; afterStart: boolean }[],
  windows: Window[],
  start: number,
): InvariantResult {
  const v: string[] = [];
  let failedStarts = 0;
  for (const e of exits) {
    const during = windows.some(
      (w) =>
        (w.what === 'PostgreSQL restart' || w.what === 'Temporal restart') && e.at >= w.from && e.at <= w.to + 10_000,
    );
    if (!e.afterStart && during) failedStarts++;
    else
      v.push(
        `${e.name} exited at +${((e.at - start) / 1000).toFixed(1)} s (code ${e.code}, signal ${e.signal}) ${e.afterStart ? 'while running' : 'while starting'}`,
      );
  }
  return result(
    'no API or worker died on its own',
    `${exits.length} unplanned exits, ${failedStarts} of them a start refused while a dependency was down`,
    first(v),
  );
}

/** Every completed mockup is served (upload -> generate -> serve), through the load balancer. */
export async function checkServed(
  sql: Sql,
  users: string[],
  baseUrl: string,
  ledger: LoadLedger,
): Promise<InvariantResult> {
  const v: string[] = [];
  const rows = await sql<{ id: string; mockupKey: string }[]>`
    select id, mockup_key as "mockupKey" from generations
    where user_id = any(${users}) and status = 'completed' and mockup_key is not null`;
  let ok = 0;
  for (let i = 0; i < rows.length; i += 8) {
    await Promise.all(
      rows.slice(i, i + 8).map(async (r) => {
        const res = await fetch(`${baseUrl}/files/${r.mockupKey}`).catch(() => null);
        const body = res ? Buffer.from(await res.arrayBuffer()) : null;
        if (res?.status === 200 && (res.headers.get('content-type') ?? '').startsWith('image/') && body!.length > 1000)
          ok++;
        else v.push(`${r.id}: ${r.mockupKey} answered ${res?.status ?? 'nothing'}`);
      }),
    );
  }
  for (const f of ledger.downloads.failed) v.push(`during the load: ${f.url} answered ${f.status}`);
  return result(
    'every completed mockup is served',
    `${ok} of ${rows.length} mockups served after the run, ${ledger.downloads.ok} downloads during it`,
    first(v),
  );
}

/** A report table: one line per invariant. */
export function formatTable(rows: InvariantResult[]): string {
  const w = Math.max(...rows.map((r) => r.name.length));
  const lines = [`${'invariant'.padEnd(w)} | result | checked`, `${'-'.repeat(w)}-|--------|--------`];
  for (const r of rows) {
    lines.push(`${r.name.padEnd(w)} | ${r.ok ? 'ok    ' : 'FAILED'} | ${r.checked}`);
    for (const x of r.violations) lines.push(`${' '.repeat(w)} |        |   ✗ ${x}`);
  }
  return lines.join('\n');
}
