import assert from 'node:assert/strict';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { grantFreeAllowancePage } from '../../db/accounts';
import { allowancePeriod } from '../../lib/accounts/allowance';
import { debitTokens, grantTokens, refundDebit, tokenBalance } from '../../db/ledger';
import { randomSuffix, userId } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { maintenanceSweep } from '../../workflows';
import {
  allocationsOf,
  debitTotals,
  expireGrant,
  generationStates,
  grantsWithReference,
  insertGeneration,
  insertUser,
  someGarmentId,
} from '../helpers/db-inspect';
import { startStack, testSql } from '../helpers/stack';

describe('token ledger (PostgreSQL)', () => {
  const sql = testSql();
  const day = 86_400_000;

  const bareUser = () => insertUser(userId());

  it('derives the balance from grants and debits; expired grants do not count', async () => {
    const u = await bareUser();
    await grantTokens(sql, { userId: u, source: 'plan', amount: 10, reference: `t:${randomSuffix()}` });
    await grantTokens(sql, {
      userId: u,
      source: 'payg_purchase',
      amount: 5,
      expiresAt: new Date(Date.now() - 1000),
      reference: `t:${randomSuffix()}`,
    });
    assert.equal(await tokenBalance(sql, u), 10);
    const r = await debitTokens(sql, u, [{ reference: `d:${randomSuffix()}`, amount: 3 }]);
    assert.ok(r.ok);
    assert.equal(r.balance, 7);
    assert.equal(await tokenBalance(sql, u), 7);
    assert.equal((await debitTotals(u)).debits, 1);
  });

  it('a debit whose reference exists is a no-op returning the first result', async () => {
    const u = await bareUser();
    await grantTokens(sql, { userId: u, source: 'plan', amount: 5, reference: `t:${randomSuffix()}` });
    const ref = `gen_${Date.now()}_${randomSuffix()}`;
    const first = await debitTokens(sql, u, [{ reference: ref, amount: 1 }]);
    const again = await debitTokens(sql, u, [{ reference: ref, amount: 1 }]);
    assert.ok(first.ok && again.ok);
    assert.equal(first.duplicate, false);
    assert.equal(again.duplicate, true);
    assert.equal(again.balance, first.balance);
    assert.equal(await tokenBalance(sql, u), 4);
  });

  it('a grant whose reference exists is not granted twice', async () => {
    const u = await bareUser();
    const ref = `stripe:evt_${randomSuffix()}`;
    assert.equal(await grantTokens(sql, { userId: u, source: 'payg_purchase', amount: 100, reference: ref }), true);
    assert.equal(await grantTokens(sql, { userId: u, source: 'payg_purchase', amount: 100, reference: ref }), false);
    assert.equal(await tokenBalance(sql, u), 100);
  });

  it('never goes below zero under many concurrent debits on one account', async () => {
    const u = await bareUser();
    await grantTokens(sql, { userId: u, source: 'free', amount: 25, reference: `t:${randomSuffix()}` });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => debitTokens(sql, u, [{ reference: `par:${u}:${i}`, amount: 1 }])),
    );
    const ok = results.filter((r) => r.ok).length;
    const refused = results.filter((r) => !r.ok);
    assert.equal(ok, 25);
    assert.equal(refused.length, 35);
    for (const r of refused) if (!r.ok) assert.deepEqual([r.required, r.available], [1, 0]);
    assert.equal(await tokenBalance(sql, u), 0);
    assert.equal((await debitTotals(u)).allocated, 25);
  });

  it('spends the grants that expire soonest first, permanent ones last', async () => {
    const u = await bareUser();
    const later = await grantRow(u, 3, new Date(Date.now() + 10 * day));
    const permanent = await grantRow(u, 5, null);
    const soon = await grantRow(u, 2, new Date(Date.now() + 1 * day));
    const ref = `d:${randomSuffix()}`;
    const r = await debitTokens(sql, u, [{ reference: ref, amount: 4 }]);
    assert.ok(r.ok);
    const byGrant = await allocationsOf(ref);
    assert.deepEqual(byGrant, { [soon]: 2, [later]: 2 });
    assert.equal(byGrant[permanent], undefined);
    // When the soonest grant expires, only what it had left is forfeited (nothing: it was spent).
    await expireGrant(soon);
    assert.equal(await tokenBalance(sql, u), 6);
  });

  it('takes several debits at once, all or none, each keeping its own allocations across grants', async () => {
    const u = await bareUser();
    const soon = await grantRow(u, 2, new Date(Date.now() + 1 * day));
    const later = await grantRow(u, 3, new Date(Date.now() + 10 * day));
    const permanent = await grantRow(u, 5, null);
    const refs = [1, 2, 3].map((i) => `d${i}:${randomSuffix()}`);
    const tooMuch = await debitTokens(sql, u, [
      { reference: refs[0]!, amount: 6 },
      { reference: refs[1]!, amount: 5 },
    ]);
    assert.deepEqual(tooMuch, { ok: false, reason: 'insufficient_tokens', required: 11, available: 10 });
    assert.equal((await debitTotals(u)).debits, 0, 'nothing written');
    const r = await debitTokens(sql, u, [
      { reference: refs[0]!, amount: 1 },
      { reference: refs[1]!, amount: 3 },
      { reference: refs[2]!, amount: 4 },
    ]);
    assert.deepEqual(r, { ok: true, duplicate: false, balance: 2 });
    assert.deepEqual(await allocationsOf(refs[0]!), { [soon]: 1 });
    assert.deepEqual(await allocationsOf(refs[1]!), { [soon]: 1, [later]: 2 });
    assert.deepEqual(await allocationsOf(refs[2]!), { [later]: 1, [permanent]: 3 });
    const again = await debitTokens(sql, u, [
      { reference: refs[0]!, amount: 1 },
      { reference: refs[1]!, amount: 3 },
      { reference: refs[2]!, amount: 4 },
    ]);
    assert.deepEqual(again, { ok: true, duplicate: true, balance: 2 });
    await assert.rejects(
      debitTokens(sql, u, [
        { reference: refs[0]!, amount: 1 },
        { reference: `new:${randomSuffix()}`, amount: 1 },
      ]),
      /some of the debit references were used already/,
    );
    await assert.rejects(debitTokens(sql, await bareUser(), [{ reference: refs[0]!, amount: 1 }]), /another account/);
  });

  it('refunds a debit once, keeping its grant expiry; the balance returns to what it was', async () => {
    const u = await bareUser();
    const expiry = new Date(Date.now() + 5 * day);
    await grantRow(u, 3, expiry);
    const ref = `gen_${Date.now()}_${randomSuffix()}`;
    await debitTokens(sql, u, [{ reference: ref, amount: 1 }]);
    assert.equal(await tokenBalance(sql, u), 2);
    assert.equal(await refundDebit(sql, ref), true);
    assert.equal(await refundDebit(sql, ref), false);
    assert.equal(await tokenBalance(sql, u), 3);
    const [g] = await grantsWithReference(`refund:${ref}`);
    assert.equal(g!.source, 'refund');
    assert.equal(g!.expiresAt!.getTime(), expiry.getTime());
    assert.equal(await refundDebit(sql, 'no-such-debit'), false);
  });

  it('gives accounts without a current allowance their Free tokens once (existing accounts made whole)', async () => {
    const u = await bareUser();
    assert.equal(await tokenBalance(sql, u), 0);
    const acts = createMaintenanceActivities({ sql, log: createLogger({ level: 'error' }) });
    assert.ok((await acts.grantFreeAllowances()) >= 1);
    assert.equal(await tokenBalance(sql, u), 50);
    await acts.grantFreeAllowances();
    assert.equal(await tokenBalance(sql, u), 50);
  });

  it('anchors allowance periods on the signup day, clamped to short months', () => {
    const signup = new Date('2026-01-31T10:00:00Z');
    const feb = allowancePeriod(signup, new Date('2026-02-15T00:00:00Z'));
    assert.equal(feb.start.toISOString(), '2026-01-31T10:00:00.000Z');
    assert.equal(feb.end.toISOString(), '2026-02-28T10:00:00.000Z');
    const mar = allowancePeriod(signup, new Date('2026-03-01T00:00:00Z'));
    assert.equal(mar.start.toISOString(), '2026-02-28T10:00:00.000Z');
    assert.equal(mar.end.toISOString(), '2026-03-31T10:00:00.000Z');
  });

  async function grantRow(u: string, amount: number, expiresAt: Date | null): Promise<number> {
    const reference = `t:${randomSuffix()}`;
    await grantTokens(sql, { userId: u, source: 'plan', amount, expiresAt, reference });
    const [row] = await grantsWithReference(reference);
    return row!.id;
  }
});

describe('orphaned generation recovery (maintenance)', () => {
  it('refunds and fails a generation left pending without a workflow; leaves fresh ones alone', async () => {
    const { Client, Connection } = await import('@temporalio/client');
    const sql = testSql();
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      const temporal = new Client({ connection });
      const u = await insertUser(userId());
      await grantTokens(sql, { userId: u, source: 'free', amount: 5, reference: `t:${randomSuffix()}` });
      const garmentId = await someGarmentId();
      const ids = [`gen_${Date.now()}_${randomSuffix()}`, `gen_${Date.now()}_${randomSuffix()}`];
      for (const [i, id] of ids.entries()) {
        await insertGeneration({ id, userId: u, garmentId, age: i === 0 ? '1 hour' : '0 seconds' });
        await debitTokens(sql, u, [{ reference: id, amount: 1 }]);
      }
      assert.equal(await tokenBalance(sql, u), 3);
      const acts = createMaintenanceActivities({ sql, log: createLogger({ level: 'error' }), temporal });
      assert.ok((await acts.recoverOrphanedGenerations()) >= 1);
      const rows = await generationStates({ userId: u });
      assert.deepEqual(
        rows.map((r) => r.status),
        ['failed', 'pending'],
      );
      assert.equal(await tokenBalance(sql, u), 4);
      await acts.recoverOrphanedGenerations();
      assert.equal(await tokenBalance(sql, u), 4, 'recovery is idempotent');
      // A batch item is looked up by its batch's workflow, not by its own id.
      const batchItem = `gen_${Date.now()}_${randomSuffix()}`;
      await insertGeneration({ id: batchItem, userId: u, garmentId, age: '1 hour', batchId: 'batch-nonexistent' });
      await debitTokens(sql, u, [{ reference: batchItem, amount: 1 }]);
      await acts.recoverOrphanedGenerations();
      const [item] = await generationStates({ ids: [batchItem] });
      assert.equal(item!.status, 'failed', 'no batch workflow: orphaned');
    } finally {
      await connection.close();
    }
  });
});

describe('unfinished generation recovery (maintenance)', function () {
  this.timeout(60_000);
  it('fails and refunds a generation stuck in processing whose workflow has closed; leaves a running one alone', async () => {
    const { Client, Connection } = await import('@temporalio/client');
    const sql = testSql();
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      const temporal = new Client({ connection });
      const u = await insertUser(userId());
      await grantTokens(sql, { userId: u, source: 'free', amount: 5, reference: `t:${randomSuffix()}` });
      const garmentId = await someGarmentId();
      const ids = [`gen_${Date.now()}_${randomSuffix()}`, `gen_${Date.now()}_${randomSuffix()}`];
      // Two workflows on a queue no worker polls: the first terminated by an operator, the second still running.
      const queue = `no-worker-${randomSuffix(6)}`;
      for (const id of ids) {
        await temporal.workflow.start(maintenanceSweep, { workflowId: id, taskQueue: queue });
        await insertGeneration({ id, userId: u, garmentId, age: '1 hour', status: 'processing' });
        await debitTokens(sql, u, [{ reference: id, amount: 1 }]);
      }
      await temporal.workflow.getHandle(ids[0]!).terminate('operator');
      assert.equal(await tokenBalance(sql, u), 3);
      const acts = createMaintenanceActivities({ sql, log: createLogger({ level: 'error' }), temporal });
      await acts.recoverOrphanedGenerations();
      const rows = await generationStates({ ids });
      const byId = new Map(rows.map((r) => [r.id, r]));
      assert.equal(byId.get(ids[0]!)!.status, 'failed');
      assert.match(byId.get(ids[0]!)!.error!, /workflow ended \(terminated\)/);
      assert.equal(byId.get(ids[1]!)!.status, 'processing', 'its workflow still runs');
      assert.equal(await tokenBalance(sql, u), 4, 'one refund');
      await acts.recoverOrphanedGenerations();
      assert.equal(await tokenBalance(sql, u), 4, 'idempotent');
      await temporal.workflow.getHandle(ids[1]!).terminate('test done');
    } finally {
      await connection.close();
    }
  });
});

describe('maintenance sweep workflow', function () {
  this.timeout(60_000);
  it('runs its three steps as a workflow on the worker and reports what each did', async () => {
    const stack = await startStack('maintenance');
    try {
      const sql = testSql();
      const u = await insertUser(userId());
      const result = await stack.client.workflow.execute(maintenanceSweep, {
        workflowId: `maintenance-test-${randomSuffix(6)}`,
        taskQueue: stack.taskQueue,
      });
      assert.ok(result.allowancesGranted >= 1, 'the new Free account got its allowance');
      assert.ok(Number.isInteger(result.sessionsPurged) && Number.isInteger(result.generationsRecovered));
      assert.equal(await tokenBalance(sql, u), 50);
    } finally {
      await stack.stop();
    }
  });
});

describe('free allowance, set based', () => {
  it('grants exactly the periods allowancePeriod computes (month ends, leap years, time of day), in pages, once', async () => {
    const sql = testSql();
    const tag = randomSuffix(6);
    const signups = [
      '2025-01-31T10:20:30.456Z',
      '2024-02-29T23:59:59.999Z',
      '2025-03-31T00:00:00.000Z',
      '2025-12-15T12:00:00.000Z',
      '2025-08-30T05:06:07.000Z',
    ].map((iso, i) => ({ id: `usr_zzzz_${tag}_${i}`, createdAt: new Date(iso) }));
    for (const u of signups) {
      await insertUser(u.id, u.createdAt);
    }
    for (const at of [new Date('2026-02-28T12:00:00Z'), new Date('2026-03-31T00:00:00Z')]) {
      // the periods that have no grant yet (a signup on the 31st is still in its Feb 28 period on Mar 31 at 00:00)
      const refs = signups.map((u) => `free:${u.id}:${allowancePeriod(u.createdAt, at).start.toISOString()}`);
      const existing = (await grantsWithReference(...refs)).length;
      let afterId: string | null = `usr_zzzz_${tag}`;
      let granted = 0;
      let pages = 0;
      for (;;) {
        const page = await grantFreeAllowancePage(sql, { afterId, limit: 2, at });
        granted += page.granted;
        if (page.lastId === null || !page.lastId.startsWith(`usr_zzzz_${tag}`)) break;
        afterId = page.lastId;
        pages++;
      }
      assert.equal(pages, 3, '5 accounts in pages of 2');
      assert.equal(granted, signups.length - existing, `one grant per new period at ${at.toISOString()}`);
      for (const u of signups) {
        const { start, end } = allowancePeriod(u.createdAt, at);
        const [g] = await grantsWithReference(`free:${u.id}:${start.toISOString()}`);
        assert.ok(g, `${u.id} at ${at.toISOString()}: grant free:${u.id}:${start.toISOString()}`);
        assert.equal(g.amount, 50);
        assert.equal(g.expiresAt?.toISOString(), end.toISOString());
      }
      const again = await grantFreeAllowancePage(sql, { afterId: `usr_zzzz_${tag}`, limit: 100, at });
      assert.equal(again.granted, 0, 'a second run grants nothing');
    }
  });
});
