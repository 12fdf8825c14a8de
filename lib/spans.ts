// Spans by hand, for outgoing calls the http instrumentation does not see (fetch: the image providers, Shopify)
// and for storage operations. Only @opentelemetry/api: without a started SDK (lib/tracing.ts) these are no-ops.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

const tracer = () => trace.getTracer('apparel-mockup');

/**
 * Runs `fn` in a child span of the active one (an outgoing call made with fetch, which the http instrumentation
 * does not see: the image providers, Shopify; or a storage operation). The span records a thrown error.
 */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind: SpanKind.CLIENT }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The W3C trace context headers (`traceparent`, `tracestate`) of the active span, for a request made by hand. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}

interface StorageLike {
  readonly kind: string;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<unknown>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}

/** A storage whose every operation is a span (`storage.get` …, with the key and the driver). */
export function tracedStorage<S extends StorageLike>(storage: S): S {
  const op =
    <A extends unknown[], R>(name: string, f: (key: string, ...rest: A) => Promise<R>) =>
    (key: string, ...rest: A) =>
      inSpan(`storage.${name}`, { 'storage.driver': storage.kind, 'storage.key': key }, () => f(key, ...rest));
  return Object.assign(Object.create(storage) as S, {
    put: op('put', storage.put.bind(storage)),
    get: op('get', storage.get.bind(storage)),
    exists: op('exists', storage.exists.bind(storage)),
    delete: op('delete', storage.delete.bind(storage)),
  });
}
