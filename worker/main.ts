// The worker process: registers workflows and activities on the task queue and shuts down gracefully on
// SIGINT/SIGTERM (in-flight activities get the grace period; Temporal retries anything cut off).
import { tracing } from './tracing'; // first: it instruments node:http before anything loads it
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createSql } from '../db/client';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { DURATION_BUCKETS, meterMetrics } from '../lib/metrics';
import { ensureSearchAttributes } from '../lib/temporal';
import { tracedStorage } from '../lib/spans';
import { createStorage } from '../lib/storage';
import { createWorkers } from './create-worker';
import { ensureSchedules } from './schedules';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, base: { service: 'worker' } });
  if (!config.databaseUrl)
    throw new Error('DATABASE_URL is required for the worker (npm start sets it for the embedded database)');
  if (!config.temporal.address)
    throw new Error('TEMPORAL_ADDRESS is required for the worker (npm start sets it for the dev server)');
  Runtime.install({
    logger: {
      log: (level, message, meta) =>
        log[
          level === 'TRACE' || level === 'DEBUG'
            ? 'debug'
            : level === 'WARN'
              ? 'warn'
              : level === 'ERROR'
                ? 'error'
                : 'info'
        ](message, meta),
      trace: () => {},
      debug: () => {},
      info: (m, meta) => log.info(m, meta),
      warn: (m, meta) => log.warn(m, meta),
      error: (m, meta) => log.error(m, meta),
    },
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) },
      // the SDK's temporal_* metrics and ours (lib/metrics.ts) on one Prometheus endpoint, durations in seconds
      ...(config.workerMetricsAddress
        ? {
            metrics: {
              prometheus: {
                bindAddress: config.workerMetricsAddress,
                useSecondsForDurations: true,
                histogramBucketOverrides: DURATION_BUCKETS,
              },
            },
          }
        : {}),
    },
  });
  if (config.workerMetricsAddress) log.info('worker metrics', { url: `http://${config.workerMetricsAddress}/metrics` });
  const sql = createSql(config.databaseUrl, { max: config.databasePoolMax });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const clientConnection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({
    connection: clientConnection,
    namespace: config.temporal.namespace,
    ...(tracing.enabled ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
  await ensureSearchAttributes(clientConnection, config.temporal.namespace, log);
  const workers = await createWorkers({
    connection,
    taskQueue: config.temporal.taskQueue,
    config,
    sql,
    storage: tracing.enabled ? tracedStorage(createStorage(config)) : createStorage(config),
    log,
    temporal: client,
    metrics: meterMetrics(Runtime.instance().metricMeter),
    tracing,
  });
  await ensureSchedules(client, config.temporal.taskQueue, log);
  log.info('worker started', {
    taskQueues: workers.map((w) => w.options.taskQueue),
    namespace: config.temporal.namespace,
  });
  try {
    // each Worker stops on SIGINT/SIGTERM; if one fails, the others are stopped too and the process exits
    await Promise.all(
      workers.map((w) =>
        w.run().catch((err: unknown) => {
          for (const other of workers) if (other !== w && other.getState() === 'RUNNING') other.shutdown();
          throw err;
        }),
      ),
    );
  } finally {
    await connection.close();
    await clientConnection.close();
    await sql.end({ timeout: 5 });
    await tracing.shutdown();
    log.info('worker stopped');
  }
}

main().catch((err) => {
  process.stderr.write(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'error',
      service: 'worker',
      msg: 'worker failed',
      error: String(err?.stack ?? err),
    }) + '\n',
  );
  process.exit(1);
});
