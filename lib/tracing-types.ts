// What lib/tracing.ts starts and lib/tracing-sdk.ts builds (apart, so that neither imports the other's module).
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

export interface Tracing {
  enabled: boolean;
  serviceName: string;
  /** The processor every span of this process goes through (the worker hands workflow spans to it). */
  processor?: SpanProcessor;
  resource?: Resource;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}
