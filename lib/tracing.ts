// OpenTelemetry traces (docs/operations.md#traces). When OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, a process exports its spans over OTLP/HTTP, as JSON or protobuf after
// OTEL_EXPORTER_OTLP_PROTOCOL (default http/protobuf); service.name is OTEL_SERVICE_NAME or the process's default.
// The http instrumentation makes every incoming request a span that continues the caller's `traceparent` and every
// outgoing node:http(s) request (the SSRF-guarded fetch and so the webhook callback, Stripe, S3) a child span that
// carries `traceparent`. Unset: no SDK is started, and the API's calls below are those of its no-op tracer.
//
// startTracing must run before express and node:http are loaded, so each process imports its tracing module first.
//
// The SDK itself (lib/tracing-sdk.ts) is loaded only when traces are exported: loaded, its modules hold ~19 MB of
// heap, which every full garbage collection of the process then marks (a generation's or a preview's large image
// buffers trigger one each; docs/benchmarks.md).
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Tracing } from './tracing-types';

export type { Tracing } from './tracing-types';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** Starts the OpenTelemetry SDK when the environment asks for an exporter; otherwise returns a disabled Tracing. */
export function startTracing(opts: { defaultServiceName: string; env?: NodeJS.ProcessEnv }): Tracing {
  const env = opts.env ?? process.env;
  const serviceName = env.OTEL_SERVICE_NAME || opts.defaultServiceName;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true') return { enabled: false, serviceName, shutdown: async () => {} };
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol))
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported here: use ${OTLP_PROTOCOLS.join(' or ')} (OTLP/HTTP)`,
    );
  // loaded here, synchronously, so it still patches node:http and express before the process loads them
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  return startSdk({ serviceName, protocol, env });
}

/**
 * @temporalio/interceptors-opentelemetry (the client's, the workflows' and the activities' interceptors), loaded on
 * first use: only a process that exports traces uses it (~4.6 MB of heap otherwise held for nothing).
 */
export function temporalTracing(): typeof import('@temporalio/interceptors-opentelemetry') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@temporalio/interceptors-opentelemetry');
}

/**
 * A processor for the spans the Temporal workflow interceptors make inside the workflow sandbox. They are built by
 * the interceptor package's own OpenTelemetry 1.x SDK (`parentSpanId`, `instrumentationLibrary`), while this
 * process's exporters read the current shape (`parentSpanContext`, `instrumentationScope`): each span is given the
 * current shape before it is handed on, so workflow spans keep their parent in the exported trace.
 */
export function legacySpanProcessor(target: SpanProcessor): SpanProcessor {
  return {
    onStart: () => {},
    onEnd(span) {
      const legacy = span as ReadableSpan & {
        parentSpanId?: string;
        instrumentationLibrary?: { name: string; version?: string; schemaUrl?: string };
      };
      const ctx = legacy.spanContext();
      const parentSpanContext =
        legacy.parentSpanContext ??
        (legacy.parentSpanId
          ? { traceId: ctx.traceId, spanId: legacy.parentSpanId, traceFlags: ctx.traceFlags, isRemote: false }
          : undefined);
      const instrumentationScope = legacy.instrumentationScope ??
        legacy.instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' };
      target.onEnd({ ...legacy, spanContext: () => ctx, parentSpanContext, instrumentationScope });
    },
    forceFlush: () => target.forceFlush(),
    shutdown: async () => {},
  };
}
