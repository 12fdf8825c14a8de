// Metrics and traces (docs/operations.md): who may read GET /metrics, the worker's Prometheus endpoint, and the
// OpenTelemetry variables lib/tracing.ts reads itself (validated here so a bad value stops the process at start-up).
import { z } from 'zod';
import type { EnvOf } from './parse';

export const observabilityEnv = {
  // Metrics (docs/operations.md): the API's GET /metrics answers loopback callers, and others with this bearer token;
  // the worker's Prometheus endpoint listens on WORKER_METRICS_ADDRESS (host:port) when it is set.
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  WORKER_METRICS_ADDRESS: z
    .string()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'host:port, e.g. 127.0.0.1:9465 or 0.0.0.0:9465')
    .optional(),

  // Traces (docs/operations.md#traces), the standard OpenTelemetry variables. lib/tracing.ts reads them itself,
  // before anything else is loaded (the SDK must patch node:http first); they are validated here so a bad value
  // stops the process at start-up like any other. Unset endpoint: no spans are exported.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
  OTEL_SDK_DISABLED: z
    .string()
    .optional()
    .transform((v) => v?.trim().toLowerCase() === 'true'),
};

export function observabilityConfig(e: EnvOf<typeof observabilityEnv>) {
  return {
    /** Bearer token for GET /metrics from non-loopback callers; unset: loopback only. */
    metricsToken: e.METRICS_TOKEN,
    /** host:port of the worker's Prometheus endpoint; unset: no endpoint. */
    workerMetricsAddress: e.WORKER_METRICS_ADDRESS,
    tracing: {
      /** where spans go over OTLP/HTTP (the traces endpoint, else the base one + /v1/traces); unset: not exported */
      endpoint: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT,
      /** the OTLP/HTTP encoding (lib/tracing.ts OTLP_PROTOCOLS) */
      protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? ('http/protobuf' as const),
      /** service.name of the spans; unset: each process's own (`apparel-api`, `apparel-worker`...) */
      serviceName: e.OTEL_SERVICE_NAME,
      /** OTEL_SDK_DISABLED=true: no SDK even with an endpoint */
      disabled: e.OTEL_SDK_DISABLED,
    },
  };
}
