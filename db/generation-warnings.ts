// The warnings of generations (lib/generation/warnings.ts), written beside their rows.
import type { GenerationWarning } from '../lib/generation/warnings';
import type { Sql } from './client';

/** Adds warnings to generations (one statement for any number of them); generations without any are not named. */
export async function addGenerationWarnings(
  sql: Sql,
  entries: { id: string; warnings: GenerationWarning[] }[],
): Promise<void> {
  const some = entries.filter((e) => e.warnings.length > 0);
  if (some.length === 0) return;
  await sql`
    update generations g set warnings = g.warnings || w.warnings
    from jsonb_to_recordset(${sql.json(some as never)}) as w(id text, warnings jsonb)
    where g.id = w.id`;
}
