// Payments benchmark: Stripe event acknowledgement (signed event → verified → stored → 200; target p50 ≤ 20 ms) and
// events applied per second by their stripe-event-<id> workflows (target ≥ 100/s), at 1 and 8 concurrent senders,
// with every grant checked in the ledger: exactly one grant per event, no more, no less. Token-pack purchases
// (checkout.session.completed, payment mode) need no call to Stripe, so this measures the service itself.
// Run: node --import tsx bench/payments.ts [events per run]. Prints a table and writes bench/results/payments.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { checkoutSession, postEvent, signedEvent } from '../scripts/stand-ins/stripe-events';
import { closedLoop, machineInfo, stats } from './lib';
import { startBenchStack } from './stack';

const RESULTS = path.join(__dirname, 'results', 'payments.json');
const EVENTS = Number(process.argv[2] ?? 400);
const say = (m: string) => process.stderr.write(`[bench:payments] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  process.env.STRIPE_WEBHOOK_SECRET = secret;
  const stack = await startBenchStack({ dataDir: path.join(__dirname, '..', '.data', 'bench-payments'), say });
  const sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
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
    const url = `${stack.baseUrl}/api/payments/webhook`;

    const runs = [];
    for (const senders of [1, 8]) {
      say(`${EVENTS} signed token-pack events, ${senders} concurrent sender(s)`);
      const sessions: string[] = [];
      const ids: string[] = [];
      const { results, wallMs } = await closedLoop(senders, EVENTS, async (i) => {
        const session = checkoutSession({ userId, mode: 'payment', tokens: 10 });
        sessions[i] = session.id;
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
      const [span] = await sql<{ ms: number }[]>`select extract(epoch from max(processed_at) - min(received_at)) * 1000
        as ms from stripe_events where id = any(${ids})`;
      const grants = await sql<{ reference: string; n: number; amount: number }[]>`
        select reference, count(*)::int as n, sum(amount)::int as amount from token_grants
        where reference = any(${sessions.map((s) => `stripe-checkout:${s}`)}) group by reference`;
      const exactlyOnce = grants.length === EVENTS && grants.every((g) => g.n === 1 && g.amount === 10);
      if (!exactlyOnce) throw new Error(`ledger check failed: ${grants.length} references for ${EVENTS} events`);
      runs.push({
        senders,
        events: EVENTS,
        ack: stats(results),
        acksPerSecond: Math.round((EVENTS / wallMs) * 1000 * 10) / 10,
        appliedPerSecond: Math.round((EVENTS / Number(span!.ms)) * 1000 * 10) / 10,
        grantsExactlyOnce: exactlyOnce,
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
      `written to ${path.relative(process.cwd(), RESULTS)}`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await sql.end();
    await stack.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
