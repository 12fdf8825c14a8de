// One generation of the caller's account and mode by id (GET /generations/<id>, the MCP tool get_generation and the
// resource generation://<id>): an id of the wrong shape is not looked up; both are 404 not_found.
import { getGeneration, type GenerationRow } from '../../db/generations';
import type { AppDeps } from '../context';
import { notFound } from '../errors';
import { GENERATION_ID } from '../http/schemas';

export async function generationById(
  deps: Pick<AppDeps, 'sql'>,
  userId: string,
  id: string,
  livemode: boolean,
): Promise<GenerationRow> {
  const row = GENERATION_ID.test(id) ? await getGeneration(deps.sql, userId, id, livemode) : undefined;
  if (!row) throw notFound('Generation not found');
  return row;
}
