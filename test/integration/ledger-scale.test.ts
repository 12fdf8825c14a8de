// The failure path and the balance at scale, against the run's PostgreSQL.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { completeGeneration, failAndRefund, markGenerationProcessing } from '../../db/generations';
import { insertAndChargeGenerations } from '../../db/generation-inserts';
import { createSql } from '../../db/client';
import { grantTokens, tokenBalance } from '../../db/ledger';
import { randomSuffix, timeId, userId } from '../../lib/ids';
import {
  debitStatementPlans,
  functionSettings,
  generationState,
  insertUser,
  seedOtherLedgers,
  someGarmentId,
  tokenBalancePlan,
  type PlanNode,
} from '../helpers/db-inspect';
import { testSql } from '../helpers/stack';

async function newAccount(tokens: number): Promise<string> {
  const sql = testSql();
  const u = await insertUser(userId());
  await grantTokens(sql, { userId: u, source: 'free', amount: tokens, reference: `t:${randomSuffix(10)}` });
  return u;
}

async function chargedGenerations(user: string, n: number, sql = testSql()): Promise<string[]> {
  const garmentId = await someGarmentId();
  const ids = Array.from({ length: n }, () => timeId('gen'));
  const charge = await insertAndChargeGenerations(sql, {
    userId: user,
    apiKeyId: null,
    batchId: null,
    rows: ids.map((id) => ({
      id,
      garmentId,
      color: 'White',
      zone: 'front',
      garmentImageUrl: 'http://x/b.jpg',
      webhookUrl: null,
      job: {
        userId: user,
        designUrl: 'http://x/d.png',
        blankKey: 'k',
        zone: { x: 0.3, y: 0.2, width: 0.4, height: 0.5 },
        placement: { x: 50, y: 35, scale: 0.8, rotation: 0 },
        applyTexture: true,
      },
    })),
  });
  assert.ok(charge.ok);
  return ids;
}

describe('failAndRefund: one transaction, only from pending or processing', () => {
  it('fails and refunds a pending generation once, however often it is called', async () => {
    const sql = testSql();
    const u = await newAccount(3);
    const [id] = await chargedGenerations(u, 1);
    assert.equal(await tokenBalance(sql, u), 2);
    const [first] = await failAndRefund(sql, [id!], 'boom');
    assert.equal(first!.status, 'failed');
    assert.equal(first!.status === 'failed' && first!.refunded, true);
    const [again] = await failAndRefund(sql, [id!], 'boom again');
    assert.equal(again!.status === 'failed' && again!.refunded, false);
    assert.equal(await tokenBalance(sql, u), 3, 'one refund');
    const row = await generationState(id!);
    assert.deepEqual([row?.status, row?.error, row?.tokensUsed], ['failed', 'boom', 0]);
  });

  it('leaves a generation that completed in the meantime completed, and keeps its token', async () => {
    const sql = testSql();
    const u = await newAccount(3);
    const [id] = await chargedGenerations(u, 1);
    assert.equal((await markGenerationProcessing(sql, id!))?.status, 'processing');
    // the render commits after its step was already given up on
    assert.ok(await completeGeneration(sql, id!, { mockupKey: 'mockups/m.jpg', thumbnailKey: 'mockups/t.jpg' }));
    const [outcome] = await failAndRefund(sql, [id!], 'render timed out');
    assert.equal(outcome!.status, 'completed');
    assert.equal(await tokenBalance(sql, u), 2, 'no refund of a completed generation');
    const row = await generationState(id!);
    assert.deepEqual([row?.status, row?.error], ['completed', null]);
  });

  it('moves only the rows that may move in a mixed set, refunding each of those once', async () => {
    const sql = testSql();
    const u = await newAccount(5);
    const ids = await chargedGenerations(u, 3);
    await completeGeneration(sql, ids[0]!, { mockupKey: 'mockups/a.jpg', thumbnailKey: 'mockups/a-t.jpg' });
    assert.equal((await markGenerationProcessing(sql, ids[1]!))?.status, 'processing');
    const out = await failAndRefund(sql, ids, 'could not start');
    assert.deepEqual(
      out.map((o) => o.status),
      ['completed', 'failed', 'failed'],
    );
    assert.equal(await tokenBalance(sql, u), 4, '5 - 3 charged + 2 refunded');
  });
});

describe('recording and charging generations: one round trip', () => {
  it('insertAndChargeGenerations sends one statement (no BEGIN/COMMIT around it), rows and debits written', async () => {
    const sent: string[] = [];
    // A new connection first reads the array types (the driver's own query, once per connection): not counted.
    const counted = createSql(process.env.DATABASE_URL!, {
      max: 1,
      onQuery: (q) => void (q.includes('pg_catalog.pg_type') || sent.push(q)),
    });
    try {
      const u = await newAccount(3);
      const ids = await chargedGenerations(u, 2, counted);
      assert.equal(sent.length, 1, `statements sent:\n${sent.join('\n---\n')}`);
      assert.equal(await tokenBalance(testSql(), u), 1, 'two tokens taken');
      for (const id of ids) assert.equal((await generationState(id))?.status, 'pending');
    } finally {
      await counted.end();
    }
  });

  it('the debit and the charge keep their plans from the first call on a connection (migration 034)', async () => {
    // Without it each connection plans their statements again for the first five calls (bench/debit-call.ts:
    // 1.3-1.5 ms of server CPU per call against 0.7-0.8 ms); a CREATE OR REPLACE that forgets the SET clause drops it.
    assert.deepEqual(await functionSettings(['ledger_debit', 'generations_record_and_charge']), [
      ['generations_record_and_charge', ['plan_cache_mode=force_generic_plan']],
      ['ledger_debit', ['plan_cache_mode=force_generic_plan']],
    ]);
  });
});

describe('token balance reads only the account it is for', function () {
  this.timeout(120_000);
  it('the debit looks its references up in the index, not through every debit (auto_explain)', async () => {
    // 10,000 debits of other accounts: 031-034's `reference in (select ... jsonb_array_elements(...))` took the JSON
    // array for 100 rows and read all of them (a hash semi join over a sequential scan) on every charge.
    await seedOtherLedgers(randomSuffix(6), 200, 50);
    const u = await newAccount(10);
    const plans = await debitStatementPlans(u, [{ reference: `gen_${randomSuffix(10)}`, amount: 1 }]);
    const check = plans.find((p) => /count\(\*\) filter \(where d\.user_id <> p_user_id\)/.test(p));
    assert.ok(check, `the reference check among the debit's plans:\n${plans.join('\n---\n')}`);
    assert.doesNotMatch(check, /Seq Scan on token_debits/);
    assert.match(check, /Index Scan using token_debits_reference_key/);
  });

  it('touches the allocations of the account, not the whole ledger (EXPLAIN ANALYZE)', async () => {
    const sql = testSql();
    // 200 other accounts with 50 allocations each: 10,000 allocations that are none of this account's business.
    const tag = randomSuffix(6);
    await seedOtherLedgers(tag, 200, 50);
    const u = await newAccount(10);
    await chargedGenerations(u, 2);
    const balance = await tokenBalance(sql, u);
    assert.equal(balance, 8);
    // The same statement as tokenBalance, explained with the rows each plan node really read.
    const root = await tokenBalancePlan(u);
    const read = (n: PlanNode, table: string): number =>
      (n['Relation Name'] === table ? n['Actual Rows'] * n['Actual Loops'] : 0) +
      (n.Plans ?? []).reduce((s, c) => s + read(c, table), 0);
    assert.ok(read(root, 'token_grants') >= 1, 'ledger_spendable is inlined: its tables are in the plan');
    const allocations = read(root, 'token_allocations');
    assert.ok(allocations <= 10, `read ${allocations} allocation rows for an account that has 2`);
    // and the query text above is tokenBalance's own
    const src = readFileSync(require.resolve('../../db/ledger'), 'utf8');
    assert.match(src, /\(select coalesce\(sum\(s\.remaining\), 0\)::int from ledger_spendable\(\$\{userId\}\) s\)/);
  });
});
