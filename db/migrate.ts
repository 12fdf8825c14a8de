// Applies db/migrations/*.sql in name order, each once, all of a run in one transaction: a migration that fails rolls
// back every migration of that run (and their schema_migrations rows), so a start never leaves a half-applied schema,
// and a migration cannot use statements that refuse to run in a transaction (CREATE INDEX CONCURRENTLY). The
// transaction's advisory lock makes concurrent starters (API and worker booting together, two test runs) wait
// instead of racing.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sql } from './client';

const DIR = path.join(__dirname, 'migrations');
const LOCK_KEY = 727_001;

export async function migrate(sql: Sql, log: (msg: string) => void = () => {}): Promise<string[]> {
  const files = readdirSync(DIR)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    for (const f of files) {
      if (done.has(f)) continue;
      await tx.unsafe(readFileSync(path.join(DIR, f), 'utf8'));
      await tx`insert into schema_migrations (name) values (${f})`;
      applied.push(f);
      log(`applied migration ${f}`);
    }
  });
  return applied;
}
