// The OpenTelemetry SDK and Temporal's OpenTelemetry interceptors are loaded only when traces are exported: loaded,
// they hold ~20 MB of heap that every full garbage collection of the API and the worker marks (docs/benchmarks.md).
// Each case runs in a child process, whose module cache starts empty.
import assert from 'node:assert/strict';
import { inFreshProcess } from '../helpers/fresh-process';

/** `code` in a fresh process, without the OTLP endpoints of this one's environment unless `env` sets them. */
function inChild(code: string, env: Record<string, string | undefined> = {}): unknown {
  return inFreshProcess(code, {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
    ...env,
  });
}

const LOADED = `
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
    assert.deepEqual(out, { enabled: false, loaded: [] });
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
    assert.deepEqual(out, { enabled: true, sdk: true });
  });
});
