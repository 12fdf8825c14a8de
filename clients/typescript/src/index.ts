// The typed client of the apparel mockup API: openapi-fetch over the types generated from the served OpenAPI
// document (./schema.gen.ts, `npm run client:generate`), and a thin layer where it helps: the API key, the
// Idempotency-Key, `Prefer: respond-async` with a polling helper, cursor iteration, errors as exceptions, and the
// webhook signature check (./webhooks.ts).
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.gen';

export type { components, paths } from './schema.gen';
export { verifyWebhookSignature, type VerifyOptions, type VerifyResult } from './webhooks';

type Schemas = components['schemas'];
export type Generation = Schemas['Generation'];
export type GenerateRequest = Schemas['GenerateRequest'];
export type BatchRequest = Schemas['BatchRequest'];
export type BatchResult = Schemas['BatchResult'];
export type Upload = Schemas['Upload'];
export type Analysis = Schemas['Analysis'];
export type AnalyzeRequest = Schemas['AnalyzeRequest'];
export type Garment = Schemas['Garment'];
export type DeliveryList = Schemas['DeliveryList'];
export type GenerationCallback = Schemas['GenerationCallback'];
export type ApiErrorBody = Schemas['Error'];
export type Delivery = Schemas['Delivery'];
export type RequestLogEntry = Schemas['RequestLogEntry'];

export interface MockupClientOptions {
  /** the service's origin, e.g. https://mockups.example.com (no /api/v1) */
  baseUrl: string;
  /** `<prefix>_live_…` or `<prefix>_test_…`; sent as Authorization: Bearer */
  apiKey: string;
  /** a fetch implementation (default: the global one) */
  fetch?: typeof fetch;
}

/** A Part A error answer: the HTTP status and the envelope's code, message and details. */
export class MockupApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    /** X-Request-Id of the answer: quote it to support */
    readonly requestId: string | null,
    /** Retry-After in seconds, when the answer had one (429, 503) */
    readonly retryAfter: number | null,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'MockupApiError';
  }
}

/** A fresh Idempotency-Key: send the same one again to retry a request safely. */
export const newIdempotencyKey = (): string => randomUUID();

export interface WriteOptions {
  /** Idempotency-Key; one is made for you when omitted (pass your own to retry across processes) */
  idempotencyKey?: string;
}

export interface GenerateOptions extends WriteOptions {
  /** send `Prefer: respond-async`: answer 202 at once with a pending generation (then use waitForGeneration) */
  async?: boolean;
}

/** The headers of POST /generate and /generate/batch: the Idempotency-Key (made when omitted), and Prefer when async. */
const generateHeaders = (o: GenerateOptions) => ({
  'Idempotency-Key': o.idempotencyKey ?? newIdempotencyKey(),
  ...(o.async ? { Prefer: 'respond-async' as const } : {}),
});

export interface WaitOptions {
  /** between polls; default 500 ms */
  intervalMs?: number;
  /** give up after this long; default 5 minutes */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const FINISHED = new Set(['completed', 'failed']);
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

/** Turns an openapi-fetch result into its data, or throws MockupApiError. */
function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.error === undefined && r.data !== undefined) return r.data;
  const res = r.response;
  const env = (r.error as { error?: { code?: string; message?: string; details?: Record<string, unknown> } })?.error;
  const after = res.headers.get('retry-after');
  throw new MockupApiError(
    res.status,
    env?.code ?? 'unknown',
    env?.message ?? (res.statusText || 'request failed'),
    env?.details,
    res.headers.get('x-request-id'),
    after !== null && /^\d+$/.test(after) ? Number(after) : null,
  );
}

/** Query strings carry numbers as text. */
function pageQuery<Q extends { limit?: number }>(q: Q): Omit<Q, 'limit'> & { limit?: string } {
  const { limit, ...rest } = q;
  return { ...rest, ...(limit === undefined ? {} : { limit: String(limit) }) };
}

export type MockupClient = ReturnType<typeof createMockupClient>;

export function createMockupClient(opts: MockupClientOptions) {
  const raw: Client<paths> = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${opts.apiKey}` },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });

  async function getGeneration(generationId: string): Promise<Generation> {
    return unwrap(await raw.GET('/api/v1/generations/{generationId}', { params: { path: { generationId } } }));
  }

  /** Polls a generation until it is completed or failed (a 429 waits its Retry-After). */
  async function waitForGeneration(generationId: string, w: WaitOptions = {}): Promise<Generation> {
    const end = Date.now() + (w.timeoutMs ?? 300_000);
    for (;;) {
      try {
        const g = await getGeneration(generationId);
        if (FINISHED.has(g.status)) return g;
      } catch (err) {
        if (!(err instanceof MockupApiError) || err.status !== 429) throw err;
        await sleep((err.retryAfter ?? 1) * 1000, w.signal);
        continue;
      }
      if (Date.now() > end) throw new Error(`generation ${generationId} did not finish within the timeout`);
      await sleep(w.intervalMs ?? 500, w.signal);
    }
  }

  return {
    /** the underlying openapi-fetch client, typed by the document: every route, for anything not wrapped here */
    raw,

    /** POST /upload with the file as multipart/form-data. */
    async upload(
      file: Uint8Array | Blob,
      o: WriteOptions & { filename?: string; contentType?: string } = {},
    ): Promise<Upload> {
      const form = new FormData();
      const blob =
        file instanceof Blob ? file : new Blob([new Uint8Array(file)], { type: o.contentType ?? 'image/png' });
      form.append('file', blob, o.filename ?? 'design.png');
      return unwrap(
        await raw.POST('/api/v1/upload', {
          params: { header: { 'Idempotency-Key': o.idempotencyKey ?? newIdempotencyKey() } },
          // the typed body is the form's fields; the FormData goes out as is (fetch sets the multipart boundary)
          body: form as unknown as Schemas['UploadMultipartRequest'],
          bodySerializer: (b) => b as unknown as FormData,
        }),
      );
    },

    async analyze(body: AnalyzeRequest): Promise<Analysis> {
      return unwrap(await raw.POST('/api/v1/analyze', { body }));
    },

    async garments(query: { category?: string; limit?: number; cursor?: string } = {}) {
      return unwrap(await raw.GET('/api/v1/garments', { params: { query: pageQuery(query) } }));
    },

    /**
     * POST /generate. Synchronous by default (the finished generation, or a pending one when the server's wait ran
     * out: check `status`); with `async: true` the server answers at once and you call waitForGeneration.
     */
    async generate(body: GenerateRequest, o: GenerateOptions = {}): Promise<Generation> {
      return unwrap(
        await raw.POST('/api/v1/generate', {
          params: { header: generateHeaders(o) },
          body,
        }),
      );
    },

    /** POST /generate, then polls until the generation is finished. */
    async generateAndWait(body: GenerateRequest, o: WriteOptions & WaitOptions = {}): Promise<Generation> {
      const g = await this.generate(body, { ...o, async: true });
      return FINISHED.has(g.status) ? g : waitForGeneration(g.id, o);
    },

    async batch(body: BatchRequest, o: GenerateOptions = {}): Promise<BatchResult> {
      return unwrap(
        await raw.POST('/api/v1/generate/batch', {
          params: { header: generateHeaders(o) },
          body,
        }),
      );
    },

    getGeneration,
    waitForGeneration,

    /** One page of the account's generations (of the key's mode), newest first. */
    async listGenerations(query: { limit?: number; cursor?: string } = {}) {
      return unwrap(await raw.GET('/api/v1/generations', { params: { query: pageQuery(query) } }));
    },

    /** Every generation, newest first, following nextCursor page by page. */
    async *iterateGenerations(pageSize = 50): AsyncGenerator<Generation> {
      let cursor: string | undefined;
      for (;;) {
        const page = await this.listGenerations({ limit: pageSize, ...(cursor ? { cursor } : {}) });
        yield* page.generations;
        if (!page.pagination.hasMore || !page.pagination.nextCursor) return;
        cursor = page.pagination.nextCursor;
      }
    },

    /** Sends a finished generation's callback again, as a new signed delivery (to `url`, or its webhookUrl). */
    async resendDelivery(generationId: string, url?: string): Promise<Delivery> {
      const r = await raw.POST('/api/v1/generations/{generationId}/deliveries', {
        params: { path: { generationId } },
        body: url === undefined ? {} : { url },
      });
      return unwrap(r).delivery;
    },

    /** One page of the account's request log (of the key's mode), newest first. */
    async requests(
      query: {
        keyId?: string;
        status?: '2xx' | '3xx' | '4xx' | '5xx';
        route?: string;
        method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
        limit?: number;
        cursor?: string;
      } = {},
    ) {
      return unwrap(await raw.GET('/api/v1/requests', { params: { query: pageQuery(query) } }));
    },

    /** The callback deliveries of a generation, with every attempt. */
    async deliveries(generationId: string): Promise<DeliveryList> {
      return unwrap(
        await raw.GET('/api/v1/generations/{generationId}/deliveries', { params: { path: { generationId } } }),
      );
    },
  };
}
