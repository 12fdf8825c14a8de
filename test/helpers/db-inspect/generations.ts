// Generations, and the files a template or a print file stored for them.
import { ago, sql } from './sql';

/** The id of a garment of the catalogue (any). */
export async function someGarmentId(): Promise<string> {
  const [row] = await sql()<{ id: string }[]>`select id from garments limit 1`;
  return row!.id;
}

/** A generation row as a dead API process (or a lost workflow) leaves it: made `age` ago, no render started. */
export async function insertGeneration(g: {
  id: string;
  userId: string;
  garmentId: string;
  age: string;
  status?: 'pending' | 'processing';
  batchId?: string;
}): Promise<void> {
  const status = g.status ?? 'pending';
  await sql()`insert into generations (id, user_id, garment_id, color, zone, placement, apply_texture, design_url,
      garment_image_url, blank_key, status, created_at, started_at, batch_id)
    values (${g.id}, ${g.userId}, ${g.garmentId}, 'White', 'front', '{}'::jsonb, true, 'http://x/y.png',
      'http://x/b.jpg', 'k', ${status}, ${ago(g.age)}, ${status === 'processing' ? ago(g.age) : null},
      ${g.batchId ?? null})`;
}

export interface GenerationStateRow {
  id: string;
  status: string;
  error: string | null;
  tokensUsed: number;
  mockupKey: string | null;
}

/** Generation rows, by ids or of a user, oldest first. */
export async function generationStates(by: { ids: string[] } | { userId: string }): Promise<GenerationStateRow[]> {
  return sql()<GenerationStateRow[]>`select id, status, error, tokens_used as "tokensUsed", mockup_key as "mockupKey"
    from generations where ${'ids' in by ? sql()`id in ${sql()(by.ids)}` : sql()`user_id = ${by.userId}`}
    order by created_at, id`;
}

/** A generation's row, or undefined when there is none (never made, or erased). */
export async function generationState(id: string): Promise<GenerationStateRow | undefined> {
  return (await generationStates({ ids: [id] }))[0];
}

/** The stored files of a template: source, preview and thumbnail (null when absent) and the prepared manifest. */
export async function templateStored(id: string): Promise<{ keys: (string | null)[]; prepared: string }> {
  const [row] = await sql()<{ keys: (string | null)[]; prepared: string }[]>`
    select array[source_key, preview_key, thumbnail_key] as keys, prepared_key as prepared
    from templates where id = ${id}`;
  if (!row) throw new Error(`no template ${id}`);
  return row;
}

/** The storage key of a generation's print file, if it has one. */
export async function printFileKey(generationId: string): Promise<string | undefined> {
  const [row] = await sql()<{ key: string }[]>`
    select storage_key as key from print_files where generation_id = ${generationId}`;
  return row?.key;
}
