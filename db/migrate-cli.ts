// `npm run migrate`: applies migrations and (unless SEED_ON_START=false) seeds the catalogue against DATABASE_URL.
// The deployment runs it once before the API and worker start (see docker-compose.yml).
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { createStorage } from '../lib/storage';
import { createSql } from './client';
import { migrate } from './migrate';
import { seed } from './seed';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, base: { service: 'migrate' } });
  if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
  const sql = createSql(config.databaseUrl, { max: 2 });
  try {
    const applied = await migrate(sql, (m) => log.info(m));
    log.info('migrations done', { applied });
    if (config.seedOnStart) await seed({ sql, storage: createStorage(config), log });
  } finally {
    await sql.end();
  }
}

main().catch((err) => {
  process.stderr.write(`migrate failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
