// The OpenTelemetry SDK of a process that exports its traces (lib/tracing.ts loads this module only then).
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import type { Tracing } from './tracing';

/** Starts the SDK: spans of node:http and express, exported over OTLP/HTTP (`protocol`) in batches. */
export function startSdk(opts: { serviceName: string; protocol: string; env: NodeJS.ProcessEnv }): Tracing {
  const { serviceName, protocol, env } = opts;
  // The exporters read the endpoint (adding /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT), headers and timeout from
  // the standard OTEL_EXPORTER_OTLP_* variables themselves.
  const exporter = protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtoExporter();
  // the standard batch settings (this SDK's processor does not read them itself)
  const ms = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  const processor = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: ms(env.OTEL_BSP_SCHEDULE_DELAY),
    exportTimeoutMillis: ms(env.OTEL_BSP_EXPORT_TIMEOUT),
    maxQueueSize: ms(env.OTEL_BSP_MAX_QUEUE_SIZE),
    maxExportBatchSize: ms(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE),
  });
  const resource = resourceFromAttributes({ 'service.name': serviceName });
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
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
