// Imported first by worker/main.ts: the OpenTelemetry SDK (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must patch
// node:http before anything loads it (lib/tracing.ts).
import { startTracing } from '../lib/tracing';

export const tracing = startTracing({ defaultServiceName: 'apparel-mockup-worker' });
