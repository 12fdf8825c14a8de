// The OpenTelemetry SDK of a process that exports its traces (lib/tracing.ts loads this module only then).
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SpanKind } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { redactAttributes } from './trace-redaction';
import type { Tracing } from './tracing-types';

/**
 * Our sampling decision, also for a request that carries a caller's `traceparent`: the trace is continued (same
 * trace id, the caller's span as parent) but whether it is recorded is this sampler's call, never the caller's
 * flag. OTEL_TRACES_SAMPLER (always_on, always_off, traceidratio and their parentbased_ forms) with
 * OTEL_TRACES_SAMPLER_ARG; spans of a local parent follow it.
 */
export function ourSampler(env: NodeJS.ProcessEnv): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'always_on').replace(/^parentbased_/, '');
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const root =
    name === 'always_off'
      ? new AlwaysOffSampler()
      : name === 'traceidratio'
        ? new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1)
        : new AlwaysOnSampler();
  return new ParentBasedSampler({ root, remoteParentSampled: root, remoteParentNotSampled: root });
}

/**
 * Redacts URLs in span attributes (lib/trace-redaction.ts) at the start and at the end of every span, before it is
 * handed to `target`: the query of a dashboard path, and every token-, secret- or key-like query parameter.
 */
export function redactingProcessor(target: SpanProcessor): SpanProcessor {
  const kindOf = (s: ReadableSpan) =>
    s.kind === SpanKind.SERVER ? 'server' : s.kind === SpanKind.CLIENT ? 'client' : 'other';
  return {
    onStart(span: Span, ctx) {
      const changed = redactAttributes(span.attributes, kindOf(span));
      if (changed) span.setAttributes(changed as Record<string, string>);
      target.onStart(span, ctx);
    },
    onEnd(span: ReadableSpan) {
      const changed = redactAttributes(span.attributes, kindOf(span));
      // attributes set after the start (an instrumentation's late ones): the ended span's own record is rewritten
      if (changed) Object.assign(span.attributes as Record<string, unknown>, changed);
      target.onEnd(span);
    },
    forceFlush: () => target.forceFlush(),
    shutdown: () => target.shutdown(),
  };
}

/** Starts the SDK: spans of node:http and express, exported over OTLP/HTTP (`protocol`) in batches. */
export function startSdk(opts: { serviceName: string; protocol: string; env: NodeJS.ProcessEnv }): Tracing {
  const { serviceName, protocol, env } = opts;
  // The exporters read the endpoint (adding /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT), headers and timeout from
  // the standard OTEL_EXPORTER_OTLP_* variables themselves.
  const exporter = protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtoExporter();
  // the standard batch settings (this SDK's processor does not read them itself)
  const ms = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  const batch = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: ms(env.OTEL_BSP_SCHEDULE_DELAY),
    exportTimeoutMillis: ms(env.OTEL_BSP_EXPORT_TIMEOUT),
    maxQueueSize: ms(env.OTEL_BSP_MAX_QUEUE_SIZE),
    maxExportBatchSize: ms(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE),
  });
  const processor = redactingProcessor(batch);
  const resource = resourceFromAttributes({ 'service.name': serviceName });
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
    sampler: ourSampler(env),
    // trace context only: a caller's `baggage` header is neither read nor passed on to our outgoing calls
    textMapPropagator: new W3CTraceContextPropagator(),
    // traces only: no log or metric exporter from the OTEL_* defaults (metrics are Prometheus, logs are stdout)
    logRecordProcessors: [],
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation({
        // the exporter's own requests would otherwise be traced, and their spans exported, without end
        ignoreOutgoingRequestHook: (req) => String(req.path ?? '').endsWith('/v1/traces'),
      }),
      new ExpressInstrumentation(),
    ],
  });
  sdk.start();
  return { enabled: true, serviceName, processor, resource, shutdown: () => sdk.shutdown() };
}
