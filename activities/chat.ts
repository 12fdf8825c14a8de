// Activities of the chatDesign workflow. The job check, the reference images, the print asset, the mockups
// and the records run as local activities; each image provider is a regular activity (activities/chat-providers.ts)
// with its own timeout and retry policy (set by the workflow from beginChatJob's plan). Every step is idempotent on
// the job id: the refund is keyed by it, files are stored under keys derived from it (a re-run writes the same
// bytes), and the record and failure steps leave a finished job as it is.
import { ACCOUNT_DELETED } from '../lib/accounts/types';
import { Context } from '@temporalio/activity';
import { chatJobToStart, completeChatJob, failAndRefundChatJob, type FailOutcome } from '../db/chat';
import { catalogueBlankZones } from '../db/garments';
import { MOCKUP_PLACEMENTS, mockupZone, planMockups } from '../lib/chat/mockup-plan';
import { chatKeys, providerPlan } from '../lib/chat/plan';
import { EmptyGraphicError, makePrintAsset } from '../lib/chat/print-asset';
import { normalizeReference, referenceSources } from '../lib/chat/references';
import {
  ChatErrors,
  PRINT_DPI,
  PRINT_LONG_SIDE,
  type ChatJobStart,
  type ChatModel,
  type ChatRecord,
  type ChatWorkflowInput,
  type MockupOut,
  type MockupsOut,
  type PrintAssetOut,
  type ReferenceSet,
} from '../lib/chat/types';
import { composite } from '../lib/compositing';
import { isBadInput } from '../lib/errors';
import { ownFileKey } from '../lib/fetch';
import { createChatProviderActivities, readChatFile } from './chat-providers';
import { nonRetryable as fail, type ImageActivityDeps } from './deps';

/** The image activities' dependencies; `loadUserImage` is limited as uploads are (activities/index.ts). */
export type ChatActivityDeps = ImageActivityDeps;

/** Bad input becomes the job's non-retryable ChatBadInput failure (a 400 answer), with `what` named first. */
const badInput = (what: string) => (err: unknown) => {
  throw isBadInput(err) ? fail(ChatErrors.BadInput, `${what}${(err as Error).message}`) : err;
};

export function createChatActivities(deps: ChatActivityDeps) {
  const { sql, storage, config, log } = deps;
  const ms = (started: number) => Math.round(performance.now() - started);

  return {
    ...createChatProviderActivities(deps),

    /**
     * Checks the job can run (it exists, is not failed, and the API took its debit with it) and answers the provider
     * plan of this worker and the thread's previous graphic. A job without its debit is refused, never run unpaid.
     */
    async beginChatJob(input: ChatWorkflowInput): Promise<ChatJobStart> {
      const job = await chatJobToStart(sql, input.jobId);
      if (!job) throw fail(ChatErrors.JobState, `render job ${input.jobId} does not exist`);
      if (job.status === 'failed') throw fail(ChatErrors.JobState, `render job ${input.jobId} already failed`);
      if (!job.charged) throw fail(ChatErrors.JobState, `render job ${input.jobId} has no debit`);
      return { ok: true, providers: providerPlan(config), previousGraphicKey: job.previousGraphicKey };
    },

    /**
     * Reads the reference images (lib/chat/references.ts: the thread's previous graphic first, then `images` and
     * `designUrls`) through the SSRF guard with the upload limits, and stores each, normalized, under the job.
     */
    async fetchChatReferences(a: { jobId: string; urls: string[]; previousGraphicKey: string | null }) {
      const started = performance.now();
      const signal = Context.current().cancellationSignal;
      const sources = referenceSources(a.previousGraphicKey, a.urls);
      const keys = await Promise.all(
        sources.map(async (source, i) => {
          const raw =
            source.kind === 'stored'
              ? await readChatFile(deps, source.key)
              : await deps.loadUserImage(source.url, signal).catch(badInput(''));
          const png = await normalizeReference(raw, i).catch(badInput(''));
          const key = chatKeys.reference(a.jobId, i);
          await storage.put(key, png, 'image/png');
          return key;
        }),
      );
      const out: ReferenceSet = { keys, ms: ms(started) };
      return out;
    },

    /** Background removed where flat, trimmed, ≥ 2048 px (4096 for the 4k model) by bicubic upscaling, 300 DPI PNG. */
    async makeChatPrintAsset(a: { jobId: string; graphicKey: string; model: ChatModel }): Promise<PrintAssetOut> {
      const started = performance.now();
      const graphic = await readChatFile(deps, a.graphicKey);
      const out = await makePrintAsset(graphic, { longSide: PRINT_LONG_SIDE[a.model], dpi: PRINT_DPI }).catch(
        (err: unknown) => {
          const message = err instanceof EmptyGraphicError ? '' : 'The graphic cannot be decoded: ';
          throw fail(ChatErrors.EmptyGraphic, `${message}${(err as Error).message}`);
        },
      );
      const key = chatKeys.print(a.graphicKey);
      await storage.put(key, out.png, 'image/png');
      const { width, height, dpi, upscaled } = out;
      const backgroundRemoved = out.removedBackground !== null;
      return { key, width, height, bytes: out.png.length, dpi, backgroundRemoved, upscaled, ms: ms(started) };
    },

    /**
     * The mockups (lib/chat/mockup-plan.ts) with the compositing engine of generation: catalogue blanks with their
     * garment's zones, any other URL as a foreign blank (SSRF-guarded, pixel-bounded) with the centred default zone.
     */
    async renderChatMockups(a: { jobId: string; printKey: string; garmentUrls: string[] }): Promise<MockupsOut> {
      const started = performance.now();
      const plan = planMockups(a.garmentUrls);
      const catalogue = new Map<string, Awaited<ReturnType<typeof catalogueBlankZones>>>();
      for (const url of new Set(plan.map((p) => p.garmentUrl))) {
        const key = ownFileKey(config.publicBaseUrl, url);
        catalogue.set(url, key ? await catalogueBlankZones(sql, key) : null);
      }
      const mockups: MockupOut[] = [];
      for (const [i, p] of plan.entries()) {
        const known = catalogue.get(p.garmentUrl)!;
        const blank = await deps.blanks
          .get(known ? known.key : `url:${p.garmentUrl}`)
          .catch(badInput(`Garment image ${p.garmentUrl}: `));
        const out = await composite({
          blank,
          design: { id: `file:${a.printKey}`, load: () => readChatFile(deps, a.printKey) },
          zone: mockupZone(known, p.placement),
          placement: MOCKUP_PLACEMENTS[p.placement],
          applyTexture: true,
        }).catch((err: unknown) => {
          // the print asset is ours: a design the engine refuses is the provider's unusable graphic
          throw isBadInput(err) ? fail(ChatErrors.EmptyGraphic, `Mockup: ${(err as Error).message}`) : err;
        });
        const key = chatKeys.mockup(a.jobId, i);
        await storage.put(key, out.mockup, 'image/jpeg');
        const { width, height } = out;
        mockups.push({
          key,
          garmentUrl: p.garmentUrl,
          placement: p.placement,
          width,
          height,
          bytes: out.mockup.length,
        });
      }
      return { mockups, ms: ms(started) };
    },

    /** Everything in one transaction (db/chat.ts completeChatJob). */
    async recordChatJob(r: ChatRecord) {
      const out = await completeChatJob(sql, r);
      if (out.status === 'account_deleted' || out.status === 'missing') {
        // nothing refers to the job's files any more (its account is being deleted, or its rows were erased)
        const refs = r.refs.images.length + r.refs.designUrls.length + 1; // + the thread's previous graphic
        const keys = [
          r.graphic.key,
          r.print.key,
          ...r.mockups.map((m) => m.key),
          ...Array.from({ length: refs }, (_, i) => chatKeys.reference(r.jobId, i)),
        ];
        await Promise.all(keys.map((k) => storage.delete(k)));
        if (out.status === 'account_deleted') throw fail(ChatErrors.JobState, ACCOUNT_DELETED);
        throw fail(ChatErrors.JobState, `render job ${r.jobId} does not exist`);
      }
      if (out.status === 'completed' && !out.duplicate)
        log.info('chat job completed', { jobId: r.jobId, provider: out.provider, timings: r.timings });
      if (out.status === 'completed' && !out.duplicate)
        deps.metrics?.chatJobFinished(r.jobId, out.provider, 'completed');
      return out;
    },

    /** Refund and the failed job in one transaction (db/chat.ts failAndRefundChatJob). */
    async failChatJob(f: Parameters<typeof failAndRefundChatJob>[1]): Promise<FailOutcome> {
      const out = await failAndRefundChatJob(sql, f);
      if (out.status === 'failed' && !out.duplicate)
        log.warn('chat job failed', { jobId: f.jobId, failure: f.failure, refunded: out.refunded, error: f.error });
      if (out.status === 'failed' && !out.duplicate) deps.metrics?.chatJobFinished(f.jobId, 'none', 'failed');
      return out;
    },
  };
}

export type ChatActivities = ReturnType<typeof createChatActivities>;
