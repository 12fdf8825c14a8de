import assert from 'node:assert/strict';
import { loadConfig } from '../../lib/config';
import { generationCompletedPayload, generationFailedPayload } from '../../lib/webhooks/types';
import { JITTER, MAX_ATTEMPTS, retryDelayMs } from '../../lib/webhooks/schedule';

describe('webhook retry schedule', () => {
  const s = { initialMs: 2000, maxIntervalMs: 3600_000 };

  it('doubles from the initial delay and caps at the maximum interval', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelayMs(n, s)),
      [2000, 4000, 8000, 16000, 32000],
    );
    assert.equal(retryDelayMs(12, s), 3600_000);
    assert.equal(retryDelayMs(500, s), 3600_000, 'no overflow for large retry numbers');
  });

  it('jitters downwards only, by at most 20 %', () => {
    assert.equal(retryDelayMs(1, s, 0.999999), Math.round(2000 * (1 - JITTER * 0.999999)));
    for (const r of [0, 0.3, 0.99]) {
      const d = retryDelayMs(20, s, r);
      assert.ok(d <= 3600_000 && d >= 3600_000 * (1 - JITTER), String(d));
    }
  });

  it('with the defaults: first retry within 2 s, about 35 attempts over 24 h', () => {
    const c = loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(32) });
    assert.equal(c.webhooks.timeoutMs, 10_000);
    const sched = { initialMs: c.webhooks.retryInitialMs, maxIntervalMs: c.webhooks.retryMaxIntervalMs };
    assert.ok(retryDelayMs(1, sched) <= 2000);
    let elapsed = 0;
    let attempts = 1;
    while (elapsed + retryDelayMs(attempts, sched) <= c.webhooks.retryWindowMs)
      elapsed += retryDelayMs(attempts++, sched);
    assert.ok(attempts >= 30 && attempts <= 40 && attempts < MAX_ATTEMPTS, `${attempts} attempts`);
  });
});

describe('webhook configuration', () => {
  const base = { NODE_ENV: 'test', APP_SECRET: 'x'.repeat(32) } as const;

  it('has the documented defaults', () => {
    assert.deepEqual(loadConfig(base).webhooks, {
      timeoutMs: 10_000,
      retryInitialMs: 2000,
      retryMaxIntervalMs: 3600_000,
      retryWindowMs: 86_400_000,
      secretGraceMs: 86_400_000,
    });
  });

  it('reads durations with units', () => {
    const c = loadConfig(base, {
      WEBHOOK_RETRY_INITIAL: '250ms',
      WEBHOOK_RETRY_MAX_INTERVAL: '90s',
      WEBHOOK_RETRY_WINDOW: '2d',
      WEBHOOK_SECRET_GRACE: '0',
      WEBHOOK_TIMEOUT_MS: '3000',
    });
    assert.deepEqual(c.webhooks, {
      timeoutMs: 3000,
      retryInitialMs: 250,
      retryMaxIntervalMs: 90_000,
      retryWindowMs: 172_800_000,
      secretGraceMs: 0,
    });
  });

  it('refuses nonsense with a message naming the variable', () => {
    assert.throws(() => loadConfig(base, { WEBHOOK_RETRY_WINDOW: '2 weeks' }), /WEBHOOK_RETRY_WINDOW/);
    assert.throws(() => loadConfig(base, { WEBHOOK_RETRY_INITIAL: '0s' }), /WEBHOOK_RETRY_INITIAL/);
    assert.throws(() => loadConfig(base, { WEBHOOK_TIMEOUT_MS: '10s' }), /WEBHOOK_TIMEOUT_MS/);
  });
});

describe('webhook payloads', () => {
  it('generation.completed carries exactly the spec fields, plus livemode (test mode)', () => {
    const p = generationCompletedPayload({
      id: 'gen_1_abc',
      mockupUrl: 'https://x/m.jpg',
      tokensUsed: 1,
      completedAt: '2026-01-02T03:04:05Z',
    });
    assert.deepEqual(p, {
      event: 'generation.completed',
      timestamp: '2026-01-02T03:04:05.000Z',
      livemode: true,
      data: { id: 'gen_1_abc', status: 'completed', mockupUrl: 'https://x/m.jpg', tokensUsed: 1 },
    });
  });

  it('a test-mode generation says livemode: false', () => {
    const p = generationCompletedPayload({
      id: 'gen_1_abc',
      mockupUrl: 'https://x/m.jpg',
      tokensUsed: 0,
      completedAt: '2026-01-02T03:04:05Z',
      livemode: false,
    });
    assert.equal(p.livemode, false);
  });

  it('generation.failed carries the error instead of a mockup', () => {
    const p = generationFailedPayload({
      id: 'gen_1_abc',
      error: 'not an image',
      tokensUsed: 0,
      failedAt: new Date(Date.UTC(2026, 0, 2)),
    });
    assert.deepEqual(p, {
      event: 'generation.failed',
      timestamp: '2026-01-02T00:00:00.000Z',
      livemode: true,
      data: { id: 'gen_1_abc', status: 'failed', error: 'not an image', tokensUsed: 0 },
    });
  });
});
