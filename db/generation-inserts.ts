// Generation rows recorded and charged, all or nothing. POST /generate is a batch of one, POST /generate/batch up to
// 25, POST /generate/bulk more: one statement (generations_record_and_charge, db/migrations/032_one_round_trip_charge.sql,
// one round trip in autocommit) records every generation row and takes one token per generation through the ledger's
// one debit (ledger_debit, which db/ledger.ts debitTokensIn calls too: one debit each, reference = the generation id,
// so a refund refund:<generation id> gives back one generation's token; the low-balance mail written with it), or
// records and charges nothing.
import type { RenderJob } from '../lib/generation/types';
import { bulkRecords, type NewBulk } from './bulk';
import { jsonParam, type Sql } from './client';
import { IdempotencyKeyLost, type IdempotencyRef } from './idempotency';

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

/** SQLSTATE of generations_record_and_charge when the Idempotency-Key was taken over by another request. */
const KEY_LOST = 'MKIKL';

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
     * The request's Idempotency-Key: the generation ids are recorded on it in the same statement (its recovery
     * point), and nothing is charged when another request has taken the key over (IdempotencyKeyLost).
     */
    idempotency?: IdempotencyRef;
    /** The bulk these generations are the items of: its row and items are written in the same statement. */
    bulk?: NewBulk;
  },
): Promise<BatchChargeResult> {
  const { userId, batchId, rows, idempotency, test } = opts;
  if (rows.length === 0) throw new Error('a batch needs at least one generation');
  // The account row is locked first (by the debit), so the test budget is read under it; nothing stays written
  // unless everything is.
  const idem = idempotency ?? null;
  const [out] = await sql<
    {
      ok: boolean;
      balance: number | null;
      required: number;
      available: number;
      testUsed: number | null;
      testOldest: Date | null;
    }[]
  >`select out_ok as ok, out_balance as balance, out_required as required, out_available as available,
           out_test_used as "testUsed", out_test_oldest as "testOldest"
    from generations_record_and_charge(
      ${userId}, ${jsonParam(sql, generationRecords({ ...opts, livemode: !test }))}::jsonb, ${test?.perDay ?? null}::int,
      ${idem?.accountId ?? null}::text, ${idem?.key ?? null}::text, ${idem?.token ?? null}::text,
      ${idem?.lockMs ?? null}::int,
      ${idem ? jsonParam(sql, { generationIds: rows.map((r) => r.id), batchId }) : null}::jsonb,
      ${opts.bulk ? jsonParam(sql, bulkRecords(opts.bulk)) : null}::jsonb)`.catch((err: unknown) => {
    if ((err as { code?: string }).code === KEY_LOST) throw new IdempotencyKeyLost(idem!.key);
    throw err;
  });
  if (!out) throw new Error('generations_record_and_charge answered nothing');
  if (out.ok) return { ok: true, balance: out.balance! };
  if (test && out.testUsed !== null)
    return { ok: false, testLimit: testLimit(test.perDay, out.testUsed, out.testOldest) };
  return { ok: false, required: out.required, available: out.available };
}

/**
 * Test mode (docs/test-mode.md): the account's test budget of `perDay` generations in any 24 hours, read under the
 * account's row lock (so serialized with every other insert of the account) by generations_record_and_charge, which
 * answers how many the last 24 hours hold and when the oldest of them was made.
 */
function testLimit(perDay: number, used: number, oldest: Date | null) {
  const freesAt = oldest ? oldest.getTime() + 86_400_000 : Date.now();
  return { limit: perDay, used, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - Date.now()) / 1000)) };
}

/** The generations by column, pending (a live one charged 1 token, a test one none). */
function generationRecords(o: {
  userId: string;
  apiKeyId: string | null;
  batchId: string | null;
  rows: NewGeneration[];
  livemode: boolean;
}) {
  return o.rows.map(({ id, job, ...r }) => ({
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
          designs: job.designs,
          // the first design stands for the generation in the garment columns the resource always has
          placement: job.designs[0]!.placement,
          apply_texture: false,
          design_url: job.designs[0]!.designUrl,
          blank_key: null,
          print_area: null,
        }
      : {
          template_id: null,
          designs: null,
          placement: job.placement,
          apply_texture: job.applyTexture,
          design_url: job.designUrl,
          blank_key: job.blankKey,
          print_area: job.printArea ? { ...job.printArea } : null,
        }),
    batch_id: o.batchId,
    livemode: o.livemode,
    tokens_used: o.livemode ? 1 : 0,
  }));
}
