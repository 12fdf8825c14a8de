// All-or-nothing charge for generations (POST /generate is a batch of one, POST /generate/batch up to 25): one
// transaction records every generation row and takes one token per generation (one debit each, reference = the
// generation id), or records and charges nothing. Same ledger rules as debitTokens in ./ledger: the account row is
// locked so concurrent debits serialise, grants that expire soonest are spent first, expired grants do not count.
// Each debit keeps its own allocations, so refundDebit(<generation id>) gives back one generation's token.
import type { Placement } from '../lib/generation/types';
import type { Sql } from './client';
import { spendableGrants } from './ledger';

export interface BatchGenerationRow {
  id: string;
  garmentId: string;
  color: string;
  zone: string;
  placement: Placement;
  applyTexture: boolean;
  designUrl: string;
  garmentImageUrl: string;
  blankKey: string;
  webhookUrl: string | null;
}

export type BatchChargeResult = { ok: true; balance: number } | { ok: false; required: number; available: number };

export async function insertAndChargeGenerations(
  sql: Sql,
  opts: {
    userId: string;
    apiKeyId: string | null;
    /** the batch's workflow id; null for a single generation */ batchId: string | null;
    rows: BatchGenerationRow[];
  },
): Promise<BatchChargeResult> {
  const { userId, apiKeyId, batchId, rows } = opts;
  if (rows.length === 0) throw new Error('a batch needs at least one generation');
  return sql.begin(async (tx) => {
    const [user] = await tx`select id from users where id = ${userId} for update`;
    if (!user) throw new Error(`unknown user ${userId}`);
    const grants = await spendableGrants(tx, userId);
    const available = grants.reduce((s, g) => s + g.remaining, 0);
    const required = rows.length;
    if (available < required) return { ok: false as const, required, available };

    await tx`insert into generations ${tx(
      rows.map((r) => ({
        id: r.id,
        user_id: userId,
        api_key_id: apiKeyId,
        garment_id: r.garmentId,
        color: r.color,
        zone: r.zone,
        placement: tx.json(r.placement as unknown as Parameters<typeof tx.json>[0]),
        apply_texture: r.applyTexture,
        design_url: r.designUrl,
        garment_image_url: r.garmentImageUrl,
        blank_key: r.blankKey,
        webhook_url: r.webhookUrl,
        batch_id: batchId,
      })),
    )}`;
    const debits = await tx<{ id: number; reference: string }[]>`
      insert into token_debits ${tx(rows.map((r) => ({ user_id: userId, amount: 1, reference: r.id })))}
      returning id, reference`;
    const debitOf = new Map(debits.map((d) => [d.reference, d.id]));
    // One token per debit, taken from the grants in spending order.
    const allocations: { debit_id: number; grant_id: number; amount: number }[] = [];
    let g = 0;
    let left = grants[0]!.remaining;
    for (const r of rows) {
      while (left === 0) left = grants[++g]!.remaining;
      allocations.push({ debit_id: debitOf.get(r.id)!, grant_id: grants[g]!.id, amount: 1 });
      left--;
    }
    await tx`insert into token_allocations ${tx(allocations)}`;
    return { ok: true as const, balance: available - required };
  });
}
