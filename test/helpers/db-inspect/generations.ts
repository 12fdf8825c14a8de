// Generations, and the files a template or a print file stored for them.
import { GENERATION_FINISHED_CHANNEL } from '../../../lib/generation/types';
import { timeId } from '../../../lib/ids';
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

const stateColumns = () => sql()`id, status, error, tokens_used as "tokensUsed", mockup_key as "mockupKey"`;

/** Generation rows, by ids or of a user, oldest first. */
export async function generationStates(by: { ids: string[] } | { userId: string }): Promise<GenerationStateRow[]> {
  return sql()<GenerationStateRow[]>`select ${stateColumns()}
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

/** Sets a template's preview, thumbnail keys and fidelity figure as an older engine left them (its prepared data made
 * stale by the test). */
export async function setTemplateOutputs(
  id: string,
  o: { previewKey: string; thumbnailKey: string; fidelity: { psnr: number; comparedTo: string } },
): Promise<void> {
  await sql()`update templates set preview_key = ${o.previewKey}, thumbnail_key = ${o.thumbnailKey},
    fidelity = ${sql().json(o.fidelity)} where id = ${id}`;
}

/** The storage key of a generation's print file, if it has one. */
export async function printFileKey(generationId: string): Promise<string | undefined> {
  const [row] = await sql()<{ key: string }[]>`
    select storage_key as key from print_files where generation_id = ${generationId}`;
  return row?.key;
}

/** A user's latest generation (of one status, made at or after `since`, when given). */
export async function latestGeneration(
  userId: string,
  only: { status?: string; since?: Date } = {},
): Promise<GenerationStateRow | undefined> {
  const [row] = await sql()<GenerationStateRow[]>`
    select ${stateColumns()} from generations where user_id = ${userId}
      ${only.status ? sql()`and status = ${only.status}` : sql()``}
      ${only.since ? sql()`and created_at >= ${only.since}` : sql()``}
    order by created_at desc limit 1`;
  return row;
}

/** Sets a generation's status as it is (a completed one back to 'processing': a render still running). */
export async function setGenerationStatus(id: string, status: string): Promise<void> {
  await sql()`update generations set status = ${status} where id = ${id}`;
}

/** A completed generation row of a user on the first garment colour, with no files behind it: what a webhook delivery
 * refers to. Returns its id. */
export async function insertCompletedGeneration(userId: string, webhookUrl: string): Promise<string> {
  const id = timeId('gen');
  const [c] = await sql()<{ garmentId: string; color: string; frontKey: string }[]>`
    select garment_id as "garmentId", name as color, front_key as "frontKey" from garment_colors
    order by garment_id, sort_order limit 1`;
  await sql()`
    insert into generations (id, user_id, garment_id, color, zone, placement, apply_texture, design_url,
                             garment_image_url, blank_key, webhook_url, status, mockup_key, completed_at)
    values (${id}, ${userId}, ${c!.garmentId}, ${c!.color}, 'front',
            ${sql().json({ x: 50, y: 35, scale: 0.8, rotation: 0 })}, true, 'https://example.com/design.png',
            'https://example.com/blank.png', ${c!.frontKey}, ${webhookUrl}, 'completed', 'mockups/test.jpg', now())`;
  return id;
}

/** Sends the notice that a generation was recorded finished (GENERATION_FINISHED_CHANNEL) without touching a row. */
export async function notifyGenerationFinished(id: string): Promise<void> {
  await sql()`select pg_notify(${GENERATION_FINISHED_CHANNEL}, ${id})`;
}

/** The ids of the print files made for these generations. */
export async function printFileIds(generationIds: string[]): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`
    select id from print_files where generation_id in ${sql()(generationIds)} order by id`;
  return rows.map((r) => r.id);
}

/** How many print files exist, anyone's. */
export async function printFileCount(): Promise<number> {
  const [row] = await sql()<{ n: number }[]>`select count(*)::int as n from print_files`;
  return row!.n;
}

/** The print size a template keeps for its first smart object (read from the PSD at import), if any. */
export async function templatePrintSize(templateId: string): Promise<unknown> {
  const [row] = await sql()<{ size: unknown }[]>`
    select smart_objects->0->'printSize' as size from templates where id = ${templateId}`;
  return row?.size;
}

/** Drops the print size of a template's first smart object: a template imported before print sizes were read. */
export async function forgetTemplatePrintSize(templateId: string): Promise<void> {
  await sql()`update templates set smart_objects = smart_objects #- '{0,printSize}' where id = ${templateId}`;
}

/** A template row of a user in a state no upload leaves for long (still 'processing', or 'failed' with `error`). */
export async function insertTemplate(o: {
  id: string;
  userId: string;
  status: 'processing' | 'failed';
  error?: string | null;
}): Promise<void> {
  await sql()`
    insert into templates (id, user_id, name, status, source_key, source_bytes, format, width, height, error)
    values (${o.id}, ${o.userId}, 'x', ${o.status}, ${`templates/${o.id}/source.psd`}, 10, 'psd', 10, 10,
            ${o.error ?? null})`;
}
