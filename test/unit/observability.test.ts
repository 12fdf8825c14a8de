// The small pieces of metrics and traces: labels from ids and attempts, provider outcomes, token moves, and the
// conversion of the workflow interceptors' 1.x-shaped spans.
import assert from 'node:assert/strict';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { attemptBucket, providerOutcome, secondsSinceId, tokenMoves, typeLabel } from '../../lib/metrics';
import { legacySpanProcessor } from '../../lib/tracing';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createApiMetrics, isLoopback, routePattern, UNMATCHED_ROUTE } from '../../api/metrics';

describe('observability pieces', () => {
  it('times a generation from the creation time in its id', () => {
    const now = 1_760_000_000_000;
    assert.equal(secondsSinceId(`gen_${now - 2500}_abcdefghij`, now), 2.5);
    assert.equal(secondsSinceId('key_abcdefghijklmnop', now), undefined);
    assert.equal(secondsSinceId(`gen_${now + 1000}_abcdefghij`, now), undefined, 'a clock behind the id');
  });

  it('buckets attempts, bounds type labels, and classifies provider failures', () => {
    assert.deepEqual([1, 2, 3, 4, 6, 7, 40].map(attemptBucket), ['1', '2', '3', '4-6', '4-6', '7+', '7+']);
    assert.equal(typeLabel('checkout.session.completed'), 'checkout.session.completed');
    assert.equal(typeLabel('orders/create'), 'orders/create');
    assert.equal(typeLabel('x'.repeat(65)), 'other');
    assert.equal(typeLabel('Robert"); drop'), 'other');
    assert.equal(providerOutcome('retryable', 1, 3), 'retry');
    assert.equal(providerOutcome('retryable', 3, 3), 'failover');
    assert.equal(providerOutcome('rejected', 1, 3), 'failover');
    assert.equal(providerOutcome('refused', 1, 3), 'refused');
  });

  it('counts the tokens a Stripe event moved', () => {
    assert.deepEqual(tokenMoves({ granted: 100 }), [['grant', 100]]);
    assert.deepEqual(tokenMoves({ granted: 0, takenBack: 30, givenBack: 0 }), [['clawback', 30]]);
    assert.deepEqual(tokenMoves({ granted: 0, givenBack: 20 }), [['grant', 20]]);
    assert.deepEqual(tokenMoves({ granted: 0 }), []);
  });

  it('labels a request with its route pattern, and tells loopback addresses', () => {
    const req = (route: unknown, baseUrl = '') => ({ route, baseUrl, res: { locals: {} } }) as never;
    assert.equal(
      routePattern(req({ path: '/generations/:generationId' }, '/api/v1')),
      '/api/v1/generations/:generationId',
    );
    assert.equal(routePattern(req(undefined)), UNMATCHED_ROUTE);
    assert.equal(routePattern(req({ path: '/' }, '/api')), '/api');
    for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopback(ip), ip);
    for (const ip of ['10.0.0.1', '203.0.113.7', '::ffff:10.0.0.1', '', undefined]) assert.ok(!isLoopback(ip), ip);
  });

  it("gives workflow spans the current SDK's parent and scope fields", () => {
    const ended: ReadableSpan[] = [];
    const target = {
      onEnd: (s: ReadableSpan) => ended.push(s),
      forceFlush: async () => {},
    } as unknown as SpanProcessor;
    const ctx = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    const legacy = {
      name: 'RunWorkflow:generation',
      spanContext: () => ctx,
      parentSpanId: 'c'.repeat(16),
      instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
      attributes: {},
    };
    legacySpanProcessor(target).onEnd(legacy as unknown as ReadableSpan);
    const s = ended[0]!;
    assert.equal(s.parentSpanContext?.spanId, 'c'.repeat(16));
    assert.equal(s.parentSpanContext?.traceId, ctx.traceId);
    assert.equal(s.instrumentationScope.name, '@temporalio/interceptor-workflow');
    assert.equal(s.spanContext().spanId, ctx.spanId);
    assert.equal(s.name, 'RunWorkflow:generation');
    // a root span stays a root
    legacySpanProcessor(target).onEnd({ ...legacy, parentSpanId: undefined } as unknown as ReadableSpan);
    assert.equal(ended[1]!.parentSpanContext, undefined);
  });

  it('labels an answer given by the error handler with the full pattern of the route that failed', async () => {
    const metrics = createApiMetrics();
    const app = express();
    app.use(metrics.observe);
    const router = express.Router();
    router.get('/things/:thingId', (_req, _res, next) => next(new Error('boom')));
    app.use('/api/v1', router);
    app.use(((_err, _req, res, _next) => void res.status(500).end()) as express.ErrorRequestHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const port = (server.address() as AddressInfo).port;
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/things/thg_123`)).status, 500);
      assert.equal((await fetch(`http://127.0.0.1:${port}/nowhere/thg_123`)).status, 404);
      const text = await metrics.registry.metrics();
      assert.match(
        text,
        /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/things\/:thingId",status_code="500"\} 1/,
      );
      assert.match(text, /route="\(unmatched\)",status_code="404"/);
      assert.doesNotMatch(text, /thg_123/);
    } finally {
      server.close();
    }
  });
});
