// Webhook payloads (spec "Outbound: generation completion"). No imports: the generation workflow builds the payload
// inside the Temporal sandbox, so this file must stay free of Node APIs and I/O.

export type WebhookEvent = 'generation.completed' | 'generation.failed';

export interface GenerationCompletedPayload {
  event: 'generation.completed';
  /** ISO 8601 time of completion. */
  timestamp: string;
  /** false for a test-mode generation */
  livemode: boolean;
  data: { id: string; status: 'completed'; mockupUrl: string; tokensUsed: number };
}

export interface GenerationFailedPayload {
  event: 'generation.failed';
  /** ISO 8601 time the generation was marked failed. */
  timestamp: string;
  /** false for a test-mode generation */
  livemode: boolean;
  data: { id: string; status: 'failed'; error: string; tokensUsed: number };
}

export type WebhookPayload = GenerationCompletedPayload | GenerationFailedPayload;

const iso = (t: Date | string) => (typeof t === 'string' ? new Date(t) : t).toISOString();

/**
 * The spec's fields plus `livemode` (test mode, docs/test-mode.md); nothing else, so receivers written against the
 * spec see what they expect.
 */
export function generationCompletedPayload(g: {
  id: string;
  mockupUrl: string;
  tokensUsed: number;
  completedAt: Date | string;
  livemode?: boolean;
}): GenerationCompletedPayload {
  return {
    event: 'generation.completed',
    timestamp: iso(g.completedAt),
    livemode: g.livemode ?? true,
    data: { id: g.id, status: 'completed', mockupUrl: g.mockupUrl, tokensUsed: g.tokensUsed },
  };
}

/** The failure counterpart: same envelope, status `failed`, the generation's error message instead of a mockup. */
export function generationFailedPayload(g: {
  id: string;
  error: string;
  tokensUsed: number;
  failedAt: Date | string;
  livemode?: boolean;
}): GenerationFailedPayload {
  return {
    event: 'generation.failed',
    timestamp: iso(g.failedAt),
    livemode: g.livemode ?? true,
    data: { id: g.id, status: 'failed', error: g.error, tokensUsed: g.tokensUsed },
  };
}
