// Payments benchmark: Stripe event acknowledgement (signed event → verified → stored → 200; target p50 ≤ 20 ms) and
// events applied per second by their stripe-event-<id> workflows (target ≥ 100/s), at 1 and 8 concurrent senders,
// with every grant checked in the ledger: exactly one grant per event, no more, no less. Token-pack purchases
// (checkout.session.completed, payment mode) of sessions created through the service's checkout before the timed
// part (only sessions it created grant); applying each reads its line items from Stripe: stripe-mock behind the
// local checkout stand-in (scripts/stand-ins/stripe-checkout.ts), on this machine.
// Where the time goes: medians over a sample of events of each stage (stored → workflow started → its workflow task
// picked up → that task completed, the local activity inside it → the grant's transaction), from PostgreSQL's
// timestamps and the workflow histories; and the CPU each process spent per event (/proc), with the whole machine's
// for comparison (the difference is other work on the machine).
// Run: node --import tsx bench/payments.ts [events per run]. Prints two tables and writes bench/results/payments.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import postgres from 'postgres';
import { resolveStripeMock, startStripeMock } from '../scripts/dev-services';
import { startStripeCheckout } from '../scripts/stand-ins/stripe-checkout';
import { checkoutSession, postEvent, signedEvent } from '../scripts/stand-ins/stripe-events';
import { closedLoop, machineInfo, median, round, stats } from './lib';
import { cpuByGroup, machineBusyMs, startBenchStack } from './stack';

const RESULTS = path.join(__dirname, 'results', 'payments.json');
const EVENTS = Number(process.argv[2] ?? 400);
const say = (m: string) => process.stderr.write(`[bench:payments] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Events per run whose workflow history is read for the stage times (spread evenly over the run). */
const SAMPLED = 40;
const PROCESSES = ['api', 'worker', 'temporal', 'postgres', 'bench'] as const;

async function main() {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  process.env.STRIPE_WEBHOOK_SECRET = secret;
  // A pack's grant reads its session's line items from Stripe: stripe-mock behind the local checkout, which keeps the
  // sessions the service creates.
  const dataDir = path.join(__dirname, '..', '.data', 'bench-payments');
  const mock = await startStripeMock({
    bin: await resolveStripeMock({ log: say }),
    port: 12_000 + Math.floor(Math.random() * 400),
    logFile: path.join(dataDir, 'stripe-mock.log'),
  });
  const local = await startStripeCheckout({ upstream: mock.url, webhookSecret: secret });
  process.env.STRIPE_SECRET_KEY = 'sk_test_123';
  process.env.STRIPE_API_URL = local.url;
  const stack = await startBenchStack({ dataDir: path.join(__dirname, '..', '.data', 'bench-payments'), say });
  const sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const temporal = new Client({ connection, namespace: stack.namespace });
  try {
    const signup = await fetch(`${stack.baseUrl}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `bench-${randomBytes(4).toString('hex')}@example.test`,
        password: 'Correct-Horse-42',
      }),
    });
    const userId = ((await signup.json()) as { user: { id: string } }).user.id;
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0]!;
    const pack = (
      (await (await fetch(`${stack.baseUrl}/api/payments/plans`)).json()) as {
        tokenPacks: { priceId: string; tokens: number }[];
      }
    ).tokenPacks[0]!;
    /** A pack's Checkout Session created through the service (recorded: only those grant). */
    const newSession = async () => {
      const res = await fetch(`${stack.baseUrl}/api/payments/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ priceId: pack.priceId, mode: 'payment' }),
      });
      if (res.status !== 200) throw new Error(`checkout answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { sessionId: string }).sessionId;
    };
    const url = `${stack.baseUrl}/api/payments/webhook`;

    const runs = [];
    for (const senders of [1, 8]) {
      say(`${EVENTS} signed token-pack events, ${senders} concurrent sender(s)`);
      const sessions: string[] = [];
      for (let i = 0; i < EVENTS; i++) sessions.push(await newSession());
      const ids: string[] = [];
      const cpu0 = cpuByGroup(stack.pids);
      const busy0 = machineBusyMs();
      const { results, wallMs } = await closedLoop(senders, EVENTS, async (i) => {
        const session = checkoutSession({ userId, mode: 'payment', tokens: pack.tokens, id: sessions[i]! });
        const e = signedEvent(secret, 'checkout.session.completed', session);
        ids[i] = e.id;
        const t0 = performance.now();
        const res = await postEvent(url, e);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`the webhook answered ${res.status}`);
        return performance.now() - t0;
      });
      // Applied when every event's row says so; the rate is over the span from the first receipt to the last grant.
      const until = Date.now() + 300_000;
      let left = EVENTS;
      while (left > 0 && Date.now() < until) {
        const [row] = await sql<{ left: number }[]>`select count(*)::int as left from stripe_events
          where id = any(${ids}) and status <> 'processed'`;
        left = row?.left ?? 0;
        if (left > 0) await sleep(100);
      }
      if (left > 0) throw new Error(`${left} events were not processed within 5 minutes`);
      const cpu1 = cpuByGroup(stack.pids);
      const cpuMsPerEvent: Record<string, number> = {};
      for (const k of PROCESSES) cpuMsPerEvent[k] = round(((cpu1[k] ?? 0) - (cpu0[k] ?? 0)) / EVENTS, 2);
      cpuMsPerEvent.machine = round((machineBusyMs() - busy0) / EVENTS, 2);
      const [span] = await sql<{ ms: number }[]>`select extract(epoch from max(processed_at) - min(received_at)) * 1000
        as ms from stripe_events where id = any(${ids})`;
      const grants = await sql<{ reference: string; n: number; amount: number }[]>`
        select reference, count(*)::int as n, sum(amount)::int as amount from token_grants
        where reference = any(${sessions.map((s) => `stripe-checkout:${s}`)}) group by reference`;
      const exactlyOnce = grants.length === EVENTS && grants.every((g) => g.n === 1 && g.amount === pack.tokens);
      if (!exactlyOnce) throw new Error(`ledger check failed: ${grants.length} references for ${EVENTS} events`);
      runs.push({
        senders,
        events: EVENTS,
        ack: stats(results),
        acksPerSecond: Math.round((EVENTS / wallMs) * 1000 * 10) / 10,
        appliedPerSecond: Math.round((EVENTS / Number(span!.ms)) * 1000 * 10) / 10,
        grantsExactlyOnce: exactlyOnce,
        stagesMs: await stageTimes(sql, temporal, ids),
        cpuMsPerEvent,
      });
    }

    const result = { machine: machineInfo(), targets: { ackP50Ms: 20, appliedPerSecond: 100 }, runs };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(result, null, 2));
    const lines = [
      `${'senders'.padEnd(8)} ${'events'.padStart(7)} ${'ack p50'.padStart(8)} ${'ack p99'.padStart(8)} ${'acks/s'.padStart(8)} ${'applied/s'.padStart(10)}  ledger`,
      ...runs.map(
        (r) =>
          `${String(r.senders).padEnd(8)} ${String(r.events).padStart(7)} ${String(r.ack.p50Ms).padStart(8)} ${String(r.ack.p99Ms).padStart(8)} ${String(r.acksPerSecond).padStart(8)} ${String(r.appliedPerSecond).padStart(10)}  ${r.grantsExactlyOnce ? 'one grant per event' : 'MISMATCH'}`,
      ),
      'targets: ack p50 ≤ 20 ms, ≥ 100 events applied per second',
      '',
      `medians (ms): stored → workflow started → task picked up → task done (local activity) → grant transaction;`,
      `CPU ms per event of each process, and of the whole machine`,
      `${'senders'.padEnd(8)} ${'started'.padStart(8)} ${'queued'.padStart(8)} ${'task'.padStart(7)} ${'applied'.padStart(8)}  ${PROCESSES.map((p) => p.padStart(8)).join(' ')} ${'machine'.padStart(8)}`,
      ...runs.map(
        (r) =>
          `${String(r.senders).padEnd(8)} ${[r.stagesMs.started, r.stagesMs.queued].map((v) => String(v).padStart(8)).join(' ')} ${String(r.stagesMs.task).padStart(7)} ${String(r.stagesMs.applied).padStart(8)}  ${[...PROCESSES, 'machine' as const].map((p) => String(r.cpuMsPerEvent[p]).padStart(8)).join(' ')}`,
      ),
      `written to ${path.relative(process.cwd(), RESULTS)}`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await connection.close();
    await sql.end();
    await stack.stop();
    await local.stop();
    await mock.stop();
  }
}

/**
 * Medians over a sample of the run's events: stored (PostgreSQL now() at the insert) → workflow started (`started`)
 * → its workflow task picked up by the worker (`queued`) → that task completed, the local activity having run inside
 * it (`task`); and stored → the grant's transaction (`applied`).
 */
async function stageTimes(sql: postgres.Sql, temporal: Client, ids: string[]) {
  const step = Math.max(1, Math.floor(ids.length / SAMPLED));
  const sample = ids.filter((_, i) => i % step === 0).slice(0, SAMPLED);
  const rows = await sql<{ id: string; received: number; processed: number }[]>`
    select id, extract(epoch from received_at) * 1000 as received, extract(epoch from processed_at) * 1000 as processed
    from stripe_events where id = any(${sample})`;
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;
  const s = { started: [] as number[], queued: [] as number[], task: [] as number[], applied: [] as number[] };
  for (const r of rows) {
    const events = (await temporal.workflow.getHandle(`stripe-event-${r.id}`).fetchHistory()).events ?? [];
    const at = (has: (e: (typeof events)[number]) => unknown) => ms(events.find(has)?.eventTime);
    const started = at((e) => e.workflowExecutionStartedEventAttributes);
    const picked = at((e) => e.workflowTaskStartedEventAttributes);
    s.started.push(started - Number(r.received));
    s.queued.push(picked - started);
    s.task.push(at((e) => e.workflowTaskCompletedEventAttributes) - picked);
    s.applied.push(Number(r.processed) - Number(r.received));
  }
  return {
    started: round(median(s.started)),
    queued: round(median(s.queued)),
    task: round(median(s.task)),
    applied: round(median(s.applied)),
  };
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
