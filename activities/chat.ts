// Activities of the chatDesign workflow (issue 13). The debit, the reference images, the print asset, the mockups
// and the records run as local activities; each image provider is a regular activity with its own timeout and
// retry policy (set by the workflow from beginChatJob's plan). Every step is idempotent on the job id: the debit
// is keyed by it, files are stored under keys derived from it (a re-run writes the same bytes), and the record
// and failure steps leave a finished job as it is.
import { ApplicationFailure, Context } from '@temporalio/activity';
import sharp from 'sharp';
import type { Sql } from '../db/client';
import { debitChatJob, failChatJob, previousGraphicKey, recordChatJob, type FailOutcome } from '../db/chat';
import { renderLocalGraphic } from '../lib/chat/local-renderer';
import { DEFAULT_ZONES, leftChestFrom, MOCKUP_PLACEMENTS, planMockups, type ZoneRect } from '../lib/chat/mockup-plan';
import { EmptyGraphicError, makePrintAsset } from '../lib/chat/print-asset';
import {
  generateWithGemini,
  generateWithOpenAI,
  geminiClient,
  openaiClient,
  ProviderError,
  type ImageAnswer,
  type ImageRequest,
  type ReferenceImage,
} from '../lib/chat/providers';
import {
  ChatErrors,
  MODEL_COST,
  PRINT_DPI,
  PRINT_LONG_SIDE,
  type ChatJobStart,
  type ChatModel,
  type ChatRecord,
  type ChatWorkflowInput,
  type GraphicOut,
  type MockupOut,
  type MockupsOut,
  type PrintAssetOut,
  type ProviderCall,
  type ProviderName,
  type ProviderPlan,
  type ReferenceSet,
} from '../lib/chat/types';
import { composite, DesignImageError, type PreparedBlankCache } from '../lib/compositing';
import type { Config } from '../lib/config';
import { ownFileKey } from '../lib/fetch';
import { detectFormat, inspectImage } from '../lib/images';
import type { Logger } from '../lib/log';
import { providerOutcome, type AppMetrics } from '../lib/metrics';
import { inSpan } from '../lib/spans';
import type { Storage } from '../lib/storage';

export interface ChatActivityDeps {
  sql: Sql;
  storage: Storage;
  config: Config;
  log: Logger;
  metrics?: AppMetrics;
  /** the worker's prepared-blank cache (shared with generation): catalogue keys, or `url:<address>` */
  blanks: PreparedBlankCache;
  /** user URLs through the SSRF guard (own files from storage), limited as uploads are */
  loadUserImage: (url: string, signal?: AbortSignal) => Promise<Buffer>;
}

/** References are sent to the providers at most this large (long side, px). */
export const REFERENCE_LONG_SIDE = 1536;

const fail = (type: string, message: string, details?: unknown) =>
  ApplicationFailure.create({ message, type, nonRetryable: true, details: details === undefined ? [] : [details] });

/** Errors that say an input cannot be used (refused URL, not an image, too large): retrying will not help. */
const isBadInput = (err: unknown) => {
  const e = err as { retryable?: boolean; name?: string };
  return e?.retryable === false || e?.name === 'BadInputError' || err instanceof DesignImageError;
};

/** The provider plan of this worker's configuration: Gemini, then OpenAI; the local renderer only with neither. */
export function providerPlan(config: Config): ProviderPlan[] {
  const c = config.chat;
  const plan: ProviderPlan[] = [];
  if (c.gemini.apiKey) plan.push({ name: 'gemini', timeoutMs: c.gemini.timeoutMs, attempts: c.providerAttempts });
  if (c.openai.apiKey) plan.push({ name: 'openai', timeoutMs: c.openai.timeoutMs, attempts: c.providerAttempts });
  if (plan.length === 0) plan.push({ name: 'local', timeoutMs: 30_000, attempts: 2 });
  return plan;
}

export const chatKeys = {
  reference: (jobId: string, i: number) => `chat/${jobId}/ref-${i}.png`,
  graphic: (jobId: string, provider: ProviderName, attempt: number, ext: string) =>
    `chat/${jobId}/graphic-${provider}-${attempt}.${ext}`,
  /** the print asset of a graphic (named after it: one graphic, one print asset) */
  print: (graphicKey: string) => graphicKey.replace(/\/graphic-([a-z]+-\d+)\.[a-z]+$/, '/print-$1.png'),
  mockup: (jobId: string, i: number) => `chat/${jobId}/mockup-${i}.jpg`,
};

export function createChatActivities(deps: ChatActivityDeps) {
  const { sql, storage, config, log } = deps;

  const readKey = async (key: string): Promise<Buffer> => {
    const obj = await storage.get(key);
    if (!obj) throw fail(ChatErrors.JobState, `stored file ${key} is missing`);
    return obj.body;
  };

  /** The references as the providers get them (PNG; normalized when they were stored). */
  const loadReferences = (keys: string[]): Promise<ReferenceImage[]> =>
    Promise.all(keys.map(async (k) => ({ data: await readKey(k), mimeType: 'image/png' })));

  /** Stores a provider's answer after checking it is an image; returns what the workflow records. */
  async function storeGraphic(
    jobId: string,
    provider: ProviderName,
    answer: Pick<ImageAnswer, 'data'>,
    started: number,
  ): Promise<GraphicOut> {
    const attempt = Context.current().info.attempt;
    const format = detectFormat(answer.data);
    let dims;
    try {
      if (!format) throw new Error('not an image');
      dims = inspectImage(answer.data, { maxBytes: 64 * 1024 * 1024 });
    } catch (err) {
      throw fail(ChatErrors.ProviderRejected, `${provider} answered with something that is not a usable image`, {
        attempt,
        error: (err as Error).message,
      });
    }
    const key = chatKeys.graphic(jobId, provider, attempt, format!.ext);
    await storage.put(key, answer.data, format!.mimeType);
    return {
      provider,
      key,
      mimeType: format!.mimeType,
      width: dims.width,
      height: dims.height,
      bytes: answer.data.length,
      attempt,
      ms: Math.round(performance.now() - started),
    };
  }

  /** One attempt with a provider SDK; failures become retryable or non-retryable activity failures. */
  async function callProvider(
    provider: 'gemini' | 'openai',
    call: ProviderCall,
    run: (req: ImageRequest) => Promise<ImageAnswer>,
  ): Promise<GraphicOut> {
    const started = performance.now();
    const ctx = Context.current();
    const attempt = ctx.info.attempt;
    const req: ImageRequest = {
      prompt: call.prompt,
      model: call.model,
      references: await loadReferences(call.referenceKeys),
      editsPrevious: call.editsPrevious,
      signal: ctx.cancellationSignal,
    };
    let answer: ImageAnswer;
    try {
      answer = await inSpan(`${provider} image`, { 'gen_ai.system': provider }, () => run(req));
    } catch (err) {
      if (err instanceof ProviderError) {
        const details = { attempt, status: err.status ?? null };
        log.warn('image provider failed', { jobId: call.jobId, provider, attempt, kind: err.kind, error: err.message });
        deps.metrics?.providerRequest(provider, providerOutcome(err.kind, attempt, config.chat.providerAttempts));
        if (err.kind === 'retryable')
          throw ApplicationFailure.create({ message: err.message, type: 'ProviderUnavailable', details: [details] });
        throw fail(
          err.kind === 'refused' ? ChatErrors.ProviderRefused : ChatErrors.ProviderRejected,
          err.message,
          details,
        );
      }
      throw err;
    }
    const out = await storeGraphic(call.jobId, provider, answer, started);
    log.info('image provider answered', { jobId: call.jobId, provider, attempt, ms: out.ms, model: answer.model });
    deps.metrics?.providerRequest(provider, 'ok');
    return out;
  }

  return {
    /**
     * Takes the model's cost (debit reference = job id; a re-run finds the debit and takes nothing) and answers the
     * provider plan of this worker and the thread's previous graphic. Insufficient balance is an answer, not a
     * failure: nothing was taken.
     */
    async beginChatJob(input: ChatWorkflowInput): Promise<ChatJobStart> {
      const r = await debitChatJob(sql, {
        jobId: input.jobId,
        userId: input.accountId,
        amount: MODEL_COST[input.model],
      });
      if (!r.ok) {
        if (r.reason === 'insufficient_tokens')
          return { ok: false, tokensNeeded: r.required, tokensAvailable: r.available };
        throw fail(
          ChatErrors.JobState,
          `render job ${input.jobId} ${r.reason === 'missing' ? 'does not exist' : 'already failed'}`,
        );
      }
      if (!r.duplicate) deps.metrics?.tokens('debit', r.amount);
      return {
        ok: true,
        balance: r.balance,
        providers: providerPlan(config),
        previousGraphicKey: input.threadId ? await previousGraphicKey(sql, input.threadId) : null,
      };
    },

    /**
     * Reads the reference images (the thread's previous graphic first, then `images` and `designUrls`) through the
     * SSRF guard with the upload limits, normalizes each to a PNG of at most 1536 px and stores it under the job.
     */
    async fetchChatReferences(a: {
      jobId: string;
      urls: string[];
      previousGraphicKey: string | null;
    }): Promise<ReferenceSet> {
      const started = performance.now();
      const signal = Context.current().cancellationSignal;
      const sources: (() => Promise<Buffer>)[] = [];
      if (a.previousGraphicKey) sources.push(() => readKey(a.previousGraphicKey!));
      for (const url of a.urls) {
        sources.push(() =>
          deps.loadUserImage(url, signal).catch((err: unknown) => {
            if (isBadInput(err)) throw fail(ChatErrors.BadInput, (err as Error).message);
            throw err;
          }),
        );
      }
      const keys = await Promise.all(
        sources.map(async (load, i) => {
          const key = chatKeys.reference(a.jobId, i);
          const raw = await load();
          let png: Buffer;
          try {
            png = await sharp(raw, { failOn: 'error', limitInputPixels: 40_000_000 })
              .rotate()
              .resize(REFERENCE_LONG_SIDE, REFERENCE_LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
              .png({ compressionLevel: 4 })
              .toBuffer();
          } catch (err) {
            throw fail(ChatErrors.BadInput, `Reference image ${i + 1} cannot be read: ${(err as Error).message}`);
          }
          await storage.put(key, png, 'image/png');
          return key;
        }),
      );
      return { keys, ms: Math.round(performance.now() - started) };
    },

    /** Google Gemini through @google/genai: one attempt per activity attempt. */
    async generateWithGemini(call: ProviderCall): Promise<GraphicOut> {
      const g = config.chat.gemini;
      if (!g.apiKey) throw fail(ChatErrors.ProviderRejected, 'GEMINI_API_KEY is not set on this worker');
      const ai = geminiClient({ apiKey: g.apiKey, baseUrl: g.baseUrl, timeoutMs: g.timeoutMs });
      return callProvider('gemini', call, (req) => generateWithGemini(ai, req));
    },

    /** OpenAI images through openai: images.generate, or images.edit when there are references. */
    async generateWithOpenAI(call: ProviderCall): Promise<GraphicOut> {
      const o = config.chat.openai;
      if (!o.apiKey) throw fail(ChatErrors.ProviderRejected, 'OPENAI_API_KEY is not set on this worker');
      const client = openaiClient({ apiKey: o.apiKey, baseUrl: o.baseUrl, timeoutMs: o.timeoutMs });
      return callProvider('openai', call, (req) => generateWithOpenAI(client, req));
    },

    /** The built-in renderer (no provider configured): deterministic for the prompt and the previous graphic. */
    async renderLocally(call: ProviderCall): Promise<GraphicOut> {
      const started = performance.now();
      const previous = call.editsPrevious && call.referenceKeys[0] ? await readKey(call.referenceKeys[0]) : undefined;
      const g = await renderLocalGraphic(call.prompt, { previous });
      return storeGraphic(call.jobId, 'local', { data: g.png }, started);
    },

    /** Background removed where flat, trimmed, ≥ 2048 px (4096 for the 4k model) by bicubic upscaling, 300 DPI PNG. */
    async makeChatPrintAsset(a: { jobId: string; graphicKey: string; model: ChatModel }): Promise<PrintAssetOut> {
      const started = performance.now();
      const graphic = await readKey(a.graphicKey);
      let out;
      try {
        out = await makePrintAsset(graphic, { longSide: PRINT_LONG_SIDE[a.model], dpi: PRINT_DPI });
      } catch (err) {
        if (err instanceof EmptyGraphicError) throw fail(ChatErrors.EmptyGraphic, err.message);
        throw fail(ChatErrors.EmptyGraphic, `The graphic cannot be decoded: ${(err as Error).message}`);
      }
      const key = chatKeys.print(a.graphicKey);
      await storage.put(key, out.png, 'image/png');
      return {
        key,
        width: out.width,
        height: out.height,
        bytes: out.png.length,
        dpi: out.dpi,
        backgroundRemoved: out.removedBackground !== null,
        upscaled: out.upscaled,
        ms: Math.round(performance.now() - started),
      };
    },

    /**
     * The mockups (lib/chat/mockup-plan.ts) with the compositing engine of generation: catalogue blanks with their
     * garment's zones, any other URL as a foreign blank (SSRF-guarded, pixel-bounded) with the centred default zone.
     */
    async renderChatMockups(a: { jobId: string; printKey: string; garmentUrls: string[] }): Promise<MockupsOut> {
      const started = performance.now();
      const plan = planMockups(a.garmentUrls);
      const catalogue = new Map<string, { key: string; zones: Record<string, ZoneRect> } | null>();
      for (const url of new Set(plan.map((p) => p.garmentUrl))) catalogue.set(url, await catalogueBlank(url));
      const mockups: MockupOut[] = [];
      for (const [i, p] of plan.entries()) {
        const known = catalogue.get(p.garmentUrl)!;
        const blankKey = known ? known.key : `url:${p.garmentUrl}`;
        const blank = await deps.blanks.get(blankKey).catch((err: unknown) => {
          if (isBadInput(err))
            throw fail(ChatErrors.BadInput, `Garment image ${p.garmentUrl}: ${(err as Error).message}`);
          throw err;
        });
        let zone: ZoneRect;
        if (!known) zone = DEFAULT_ZONES[p.placement];
        else if (p.placement === 'front') zone = known.zones.front ?? known.zones.back!;
        else zone = known.zones['left-chest'] ?? leftChestFrom(known.zones.front ?? known.zones.back!);
        let out;
        try {
          out = await composite({
            blank,
            design: { id: `file:${a.printKey}`, load: () => readKey(a.printKey) },
            zone,
            placement: MOCKUP_PLACEMENTS[p.placement],
            applyTexture: true,
          });
        } catch (err) {
          if (err instanceof DesignImageError || err instanceof RangeError)
            throw fail(ChatErrors.EmptyGraphic, `Mockup: ${(err as Error).message}`);
          throw err;
        }
        const key = chatKeys.mockup(a.jobId, i);
        await storage.put(key, out.mockup, 'image/jpeg');
        mockups.push({
          key,
          garmentUrl: p.garmentUrl,
          placement: p.placement,
          width: out.width,
          height: out.height,
          bytes: out.mockup.length,
        });
      }
      return { mockups, ms: Math.round(performance.now() - started) };
    },

    /** Everything in one transaction (db/chat.ts recordChatJob). */
    async recordChatJob(r: ChatRecord) {
      const out = await recordChatJob(sql, r);
      if (out.status === 'missing') throw fail(ChatErrors.JobState, `render job ${r.jobId} does not exist`);
      if (out.status === 'completed' && !out.duplicate)
        log.info('chat job completed', { jobId: r.jobId, provider: out.provider, timings: r.timings });
      if (out.status === 'completed' && !out.duplicate)
        deps.metrics?.chatJobFinished(r.jobId, out.provider, 'completed');
      return out;
    },

    /** Refund and the failed job in one transaction (db/chat.ts failChatJob). */
    async failChatJob(f: Parameters<typeof failChatJob>[1]): Promise<FailOutcome> {
      const out = await failChatJob(sql, f);
      if (out.status === 'failed' && !out.duplicate)
        log.warn('chat job failed', { jobId: f.jobId, failure: f.failure, refunded: out.refunded, error: f.error });
      if (out.status === 'failed' && !out.duplicate) deps.metrics?.chatJobFinished(f.jobId, 'none', 'failed');
      return out;
    },
  };

  /** A catalogue blank's storage key and its garment's zones (the back zone for a back view), or null. */
  async function catalogueBlank(url: string) {
    const key = ownFileKey(config.publicBaseUrl, url);
    if (!key) return null;
    const rows = await sql<
      { garmentId: string; front: boolean; zones: { id: string; x: number; y: number; w: number; h: number }[] }[]
    >`
      select c.garment_id as "garmentId", c.front_key = ${key} as front,
        (select json_agg(json_build_object('id', z.zone_id, 'x', z.rect_x, 'y', z.rect_y, 'w', z.rect_w, 'h', z.rect_h))
           from print_zones z where z.garment_id = c.garment_id and z.view = case when c.front_key = ${key} then 'front' else 'back' end) as zones
      from garment_colors c where c.front_key = ${key} or c.back_key = ${key} limit 1`;
    const row = rows[0];
    if (!row) return null;
    const zones: Record<string, ZoneRect> = {};
    for (const z of row.zones ?? []) zones[z.id] = { x: z.x, y: z.y, width: z.w, height: z.h };
    if (!zones.front && !zones.back) return null;
    return { key, zones };
  }
}

export type ChatActivities = ReturnType<typeof createChatActivities>;
