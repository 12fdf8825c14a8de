// Generation rows recorded and charged, all or nothing. POST /generate is a batch of one, POST /generate/batch up to
// 25: one transaction records every generation row and takes one token per generation through the ledger's one debit
// (db/ledger.ts debitTokensIn: one debit each, reference = the generation id, so a refund refund:<generation id> gives
// back one generation's token), or records and charges nothing.
import type { RenderJob } from '../lib/generation/types';
import type { Sql, Tx } from './client';
import { recordRecoveryPoint, type IdempotencyRef } from './idempotency';
import { debitTokensIn } from './ledger';

/**
 * A generation as POST /generate, /generate/batch (and any other way of creating many) record it: its id, its render
 * job (lib/generation/types.ts, the columns the render reads are written from it) and what the resource reports
 * besides. Recorded pending, charged in the same transaction.
 */
export interface NewGeneration {
  id: string;
  /** null on a template (its job is of kind 'template') */
  garmentId: string | null;
  color: string | null;
  zone: string | null;
  garmentImageUrl: string | null;
  webhookUrl: string | null;
  job: RenderJob;
}

export type BatchChargeResult =
  | { ok: true; balance: number }
  | { ok: false; required: number; available: number }
  /** test mode: the account's test generations of the last 24 hours would pass `limit` */
  | { ok: false; testLimit: { limit: number; used: number; retryAfterSeconds: number } };

export async function insertAndChargeGenerations(
  sql: Sql,
  opts: {
    userId: string;
    apiKeyId: string | null;
    /** the batch's workflow id; null for a single generation */ batchId: string | null;
    rows: NewGeneration[];
    /**
     * Test mode: record the rows with `livemode = false` and charge nothing; instead the account's test generations
     * of the last 24 hours (these included) must stay within `perDay`.
     */
    test?: { perDay: number };
    /**
     * The request's Idempotency-Key: the generation ids are recorded on it in this transaction (its recovery
     * point), and nothing is charged when another request has taken the key over.
     */
    idempotency?: IdempotencyRef;
    /** More rows of the same work, written in the same transaction (a bulk's own row and items: db/bulk.ts). */
    also?: (tx: Tx) => Promise<unknown>;
  },
): Promise<BatchChargeResult> {
  const { userId, batchId, rows, idempotency, test } = opts;
  if (rows.length === 0) throw new Error('a batch needs at least one generation');
  // The statements are pipelined (one round trip between begin and commit); when the charge is refused, the
  // transaction is rolled back and nothing stays written. The debit goes first, so the account row is locked
  // before anything else is read or written.
  const refused = Symbol('refused');
  let answer: BatchChargeResult | undefined;
  try {
    return await sql.begin(async (tx): Promise<BatchChargeResult> => {
      // One token per generation (reference = its id); test mode debits nothing, which locks the account all the same.
      const [debit, testLimit] = await Promise.all([
        debitTokensIn(tx, userId, test ? [] : rows.map((r) => ({ reference: r.id, amount: 1 }))),
        test ? overTestBudget(tx, userId, rows.length, test.perDay) : undefined,
        idempotency && recordRecoveryPoint(tx, idempotency, { generationIds: rows.map((r) => r.id), batchId }),
        insertGenerationRows(tx, { ...opts, livemode: !test }),
        opts.also?.(tx),
      ]);
      if (!debit.ok) answer = { ok: false, required: debit.required, available: debit.available };
      else if (testLimit) answer = { ok: false, testLimit };
      else return { ok: true, balance: debit.balance };
      throw refused;
    });
  } catch (err) {
    if (err === refused && answer) return answer;
    throw err;
  }
}

/**
 * Test mode (docs/test-mode.md): the account's test budget of `perDay` generations in any 24 hours, read under the
 * account's row lock (so serialized with every other insert of the account). Undefined while `adding` more fit.
 */
async function overTestBudget(tx: Tx, userId: string, adding: number, perDay: number) {
  const [day] = await tx<{ used: number; oldest: Date | null }[]>`
    select count(*)::int as used, min(created_at) as oldest from generations
    where user_id = ${userId} and livemode = false and created_at > now() - interval '24 hours'`;
  const used = day?.used ?? 0;
  if (used + adding <= perDay) return undefined;
  const freesAt = day?.oldest ? day.oldest.getTime() + 86_400_000 : Date.now();
  return { limit: perDay, used, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - Date.now()) / 1000)) };
}

/** Records the generations, pending (a live one charged 1 token, a test one none). */
async function insertGenerationRows(
  tx: Tx,
  o: { userId: string; apiKeyId: string | null; batchId: string | null; rows: NewGeneration[]; livemode: boolean },
) {
  await tx`insert into generations ${tx(
    o.rows.map(({ id, job, ...r }) => ({
      id,
      user_id: o.userId,
      api_key_id: o.apiKeyId,
      garment_id: r.garmentId,
      color: r.color,
      zone: r.zone,
      garment_image_url: r.garmentImageUrl,
      webhook_url: r.webhookUrl,
      ...(job.kind === 'template'
        ? {
            template_id: job.templateId,
            designs: tx.json(job.designs as unknown as Parameters<typeof tx.json>[0]),
            // the first design stands for the generation in the garment columns the resource always has
            placement: tx.json(job.designs[0]!.placement as unknown as Parameters<typeof tx.json>[0]),
            apply_texture: false,
            design_url: job.designs[0]!.designUrl,
            blank_key: null,
            print_area: null,
          }
        : {
            template_id: null,
            designs: null,
            placement: tx.json(job.placement as unknown as Parameters<typeof tx.json>[0]),
            apply_texture: job.applyTexture,
            design_url: job.designUrl,
            blank_key: job.blankKey,
            print_area: job.printArea ? tx.json({ ...job.printArea }) : null,
          }),
      batch_id: o.batchId,
      livemode: o.livemode,
      tokens_used: o.livemode ? 1 : 0,
    })),
  )}`;
}
