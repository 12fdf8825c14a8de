// Local stand-ins for the services a deployment provides (embedded PostgreSQL, the Temporal dev server, MinIO,
// stripe-mock) and the Chromium the browser tests drive, as one import for `npm start`, `npm test`, the benchmarks,
// the chaos suite and the tests. Each lives in its own module under scripts/stand-ins/; the process helpers they
// share are in scripts/stand-ins/process.ts.
export {
  IMAGE_PROCESS_MALLOC_ENV,
  cacheDir,
  freePort,
  portOpen,
  stopProcess,
  type RunningService,
} from './stand-ins/process';
export { startEmbeddedPostgres } from './stand-ins/postgres';
export { TEMPORAL_CLI_VERSION, resolveTemporalCli, startTemporalDev, temporalDevArgs } from './stand-ins/temporal';
export { resolveMinio, startMinio } from './stand-ins/minio';
export { STRIPE_MOCK_SECRET_KEY, resolveStripeMock, startStripeMock } from './stand-ins/stripe-mock';
export { resolveChromium } from './stand-ins/chromium';
