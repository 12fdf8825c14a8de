// Imported first by api/main.ts: the OpenTelemetry SDK (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must patch
// node:http and express before anything loads them (lib/tracing.ts).
import { startTracing } from '../lib/tracing';

export const tracing = startTracing({ defaultServiceName: 'apparel-mockup-api' });
