// The OpenTelemetry SDK and Temporal's OpenTelemetry interceptors are loaded only when traces are exported: loaded,
// they hold ~20 MB of heap that every full garbage collection of the API and the worker marks (docs/benchmarks.md).
// Each case runs in a child process, whose module cache starts empty.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** Runs `code` (TypeScript) in a fresh node with tsx; returns its stdout. */
function inChild(code: string, env: Record<string, string | undefined> = {}): string {
  return execFileSync(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: ROOT,
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      ...env,
    },
    encoding: 'utf8',
  });
}

const LOADED = `
  const loaded = (m) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + m + '/'));
  const heavy = ['@opentelemetry/sdk-node', '@opentelemetry/exporter-trace-otlp-proto', '@temporalio/interceptors-opentelemetry'];
`;

describe('tracing modules are loaded only when traces are exported', () => {
  it('the API app, the worker factory and a disabled startTracing load none of them', function () {
    this.timeout(60_000);
    const out = inChild(`${LOADED}
      require('./api/app');
      require('./worker/create-worker');
      const t = require('./lib/tracing').startTracing({ defaultServiceName: 'x' });
      console.log(JSON.stringify({ enabled: t.enabled, loaded: heavy.filter(loaded) }));
    `);
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { enabled: false, loaded: [] });
  });

  it('an OTLP endpoint starts the SDK (loaded then)', function () {
    this.timeout(60_000);
    const out = inChild(
      `${LOADED}
      const t = require('./lib/tracing').startTracing({ defaultServiceName: 'x' });
      console.log(JSON.stringify({ enabled: t.enabled, sdk: loaded('@opentelemetry/sdk-node') }));
      t.shutdown();
    `,
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    );
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { enabled: true, sdk: true });
  });
});
