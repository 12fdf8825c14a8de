// The API process. Stops accepting connections on SIGINT/SIGTERM, lets in-flight requests finish, then closes
// its database pool and Temporal connection.
import { tracing } from './tracing'; // first: it instruments node:http and express before anything loads them
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { createSql } from '../db/client';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { temporalTracing } from '../lib/tracing';
import { tracedStorage } from '../lib/spans';
import { createStorage } from '../lib/storage';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, base: { service: 'api' } });
  if (!config.databaseUrl)
    throw new Error('DATABASE_URL is required for the API (npm start sets it for the embedded database)');
  if (!config.temporal.address)
    throw new Error('TEMPORAL_ADDRESS is required for the API (npm start sets it for the dev server)');
  const sql = createSql(config.databaseUrl, { max: config.databasePoolMax });
  const connection = await Connection.connect({ address: config.temporal.address });
  // traced: the workflow start is a child span of the request's, and its context travels in the workflow's headers
  const temporal = new Client({
    connection,
    namespace: config.temporal.namespace,
    ...(tracing.enabled
      ? { interceptors: { workflow: [new (temporalTracing().OpenTelemetryWorkflowClientInterceptor)()] } }
      : {}),
  });
  const app = createApp({
    config,
    sql,
    storage: tracing.enabled ? tracedStorage(createStorage(config)) : createStorage(config),
    temporal,
    log,
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
  log.info('api listening', { url: config.publicBaseUrl, host: config.host, port: config.port });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('api stopping', { signal });
    const force = setTimeout(() => process.exit(1), 30_000).unref();
    server.close(async () => {
      await Promise.allSettled([sql.end({ timeout: 5 }), connection.close(), tracing.shutdown()]);
      clearTimeout(force);
      log.info('api stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'error',
      service: 'api',
      msg: 'api failed to start',
      error: String(err?.stack ?? err),
    }) + '\n',
  );
  process.exit(1);
});
