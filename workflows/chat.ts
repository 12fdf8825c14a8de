// The design chat job (id = render job id job_<n>_<suffix>, search attribute AccountId), charged by the API with
// the job row: check the job → reference images → a graphic from the provider chain → print asset → mockups →
// every record in one transaction. Any failure refunds the debit and records the failed job, in one transaction.
// Orchestration only: all I/O is in activities/chat.ts.
//
// The providers are tried in the order of the worker's plan (Gemini, then OpenAI; the local renderer only when
// neither is configured). Each is one activity with its own timeout and a bounded retry on 429, 5xx and timeouts;
// a refusal or another 4xx is non-retryable and moves to the next provider at once, and so does a graphic that
// turns out blank (all background) or undecodable when its print asset is made.
import {
  ActivityFailure,
  ApplicationFailure,
  deprecatePatch,
  log,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { ChatActivities } from '../activities/chat';
import {
  ChatErrors,
  MODEL_COST,
  NON_RETRYABLE_CHAT_ERRORS,
  type ChatFailureReason,
  type ChatWorkflowInput,
  type ChatWorkflowResult,
  type GraphicOut,
  type PrintAssetOut,
  type ProviderAttempt,
  type ProviderCall,
  type ProviderPlan,
} from '../lib/chat/types';
import { imageRetry, imageWork, paidBookkeeping } from './policies';

// Bookkeeping in PostgreSQL (job check, records, refund): patient, a database blip must not fail a paid job.
const db = proxyLocalActivities<ChatActivities>(paidBookkeeping(NON_RETRYABLE_CHAT_ERRORS));

// Image work and reading user URLs (each download has its own 20 s limit): a few attempts, none for bad input.
const images = proxyLocalActivities<ChatActivities>(imageWork(NON_RETRYABLE_CHAT_ERRORS));

/** The activity options of one provider: its timeout (plus room to read references and store the answer). */
function providerOptions(plan: ProviderPlan): ActivityOptions {
  return {
    startToCloseTimeout: plan.timeoutMs + 15_000,
    retry: imageRetry(plan.attempts, NON_RETRYABLE_CHAT_ERRORS),
  };
}

function callProvider(plan: ProviderPlan, call: ProviderCall): Promise<GraphicOut> {
  const opts = providerOptions(plan);
  switch (plan.name) {
    case 'gemini':
      return proxyActivities<ChatActivities>(opts).generateWithGemini(call);
    case 'openai':
      return proxyActivities<ChatActivities>(opts).generateWithOpenAI(call);
    case 'local':
      return proxyLocalActivities<ChatActivities>({ ...opts, localRetryThreshold: '2 seconds' }).renderLocally(call);
  }
}

/** What a failed provider activity says: its message, type and how many attempts it made. */
function describeFailure(plan: ProviderPlan, err: ActivityFailure): ProviderAttempt {
  const cause = err.cause;
  let type = 'error';
  let tries = err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? plan.attempts : 1;
  if (cause instanceof ApplicationFailure) {
    type = cause.type ?? 'error';
    const d = cause.details?.[0] as { attempt?: number } | undefined;
    if (typeof d?.attempt === 'number') tries = d.attempt;
  } else if (cause instanceof TimeoutFailure) {
    type = 'timeout';
  }
  return { provider: plan.name, ok: false, tries, type, error: cause?.message ?? err.message };
}

/**
 * Patch id: a provider's blank or undecodable graphic moves the job to the next provider instead of failing it. Runs
 * from before it failed the job there; that path is gone (issue 34: a chat job runs minutes, the patch is from
 * 2026-11-25), the patch is deprecated so runs that recorded its marker still replay.
 */
const EMPTY_GRAPHIC_NEXT_PROVIDER = 'chat-empty-graphic-next-provider';

function isEmptyGraphic(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === ChatErrors.EmptyGraphic;
}

function reason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

function failureOf(err: unknown): ChatFailureReason {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === ChatErrors.BadInput ? 'bad_input' : 'generation_failed';
}

export async function chatDesign(input: ChatWorkflowInput): Promise<ChatWorkflowResult> {
  const { jobId } = input;
  const attempts: ProviderAttempt[] = [];
  const timings: Record<string, number> = {};

  const start = await db.beginChatJob(input);
  // only in histories from when the begin step took the debit (the API charges now)
  if (!start.ok) {
    const error = `Token balance too low: ${start.tokensNeeded} needed, ${start.tokensAvailable} available`;
    await db.failChatJob({ jobId, error, failure: 'insufficient_tokens', attempts, timings });
    return {
      status: 'failed',
      jobId,
      reason: 'insufficient_tokens',
      error,
      tokensNeeded: start.tokensNeeded,
      tokensAvailable: start.tokensAvailable,
    };
  }

  try {
    const refs = await images.fetchChatReferences({
      jobId,
      urls: [...input.images, ...input.designUrls],
      previousGraphicKey: start.previousGraphicKey,
    });
    timings.references = refs.ms;
    const call: ProviderCall = {
      jobId,
      prompt: input.prompt,
      model: input.model,
      referenceKeys: refs.keys,
      editsPrevious: start.previousGraphicKey !== null,
    };
    let graphic: GraphicOut | undefined;
    let print: PrintAssetOut | undefined;
    for (const plan of start.providers) {
      try {
        graphic = await callProvider(plan, call);
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        const failed = describeFailure(plan, err);
        attempts.push(failed);
        log.warn('image provider failed; trying the next', { jobId, ...failed });
        continue;
      }
      timings.provider = graphic.ms;
      try {
        print = await images.makeChatPrintAsset({ jobId, graphicKey: graphic.key, model: input.model });
      } catch (err) {
        // A blank (all background) or undecodable image is that provider's failure: the next one is asked.
        if (!isEmptyGraphic(err)) throw err;
        deprecatePatch(EMPTY_GRAPHIC_NEXT_PROVIDER);
        const failed: ProviderAttempt = {
          provider: plan.name,
          ok: false,
          tries: graphic.attempt,
          type: ChatErrors.EmptyGraphic,
          error: reason(err),
        };
        attempts.push(failed);
        log.warn('image provider answered an unusable graphic; trying the next', { jobId, ...failed });
        graphic = undefined;
        continue;
      }
      attempts.push({ provider: plan.name, ok: true, tries: graphic.attempt });
      timings.print = print.ms;
      break;
    }
    if (!graphic || !print) {
      const summary = attempts.map((a) => `${a.provider}: ${a.error}`).join('; ');
      throw ApplicationFailure.nonRetryable(`Every image provider failed (${summary})`, 'ProvidersFailed');
    }
    const mockups = await images.renderChatMockups({ jobId, printKey: print.key, garmentUrls: input.garmentUrls });
    timings.mockups = mockups.ms;
    const rec = await db.recordChatJob({
      jobId,
      accountId: input.accountId,
      threadId: input.threadId,
      prompt: input.prompt,
      model: input.model,
      refs: { images: input.images, designUrls: input.designUrls, garmentUrls: input.garmentUrls },
      tokens: MODEL_COST[input.model],
      graphic,
      print,
      mockups: mockups.mockups,
      attempts,
      timings,
    });
    if (rec.status === 'completed')
      return { status: 'completed', jobId, threadId: rec.threadId, messageId: rec.messageId, provider: rec.provider };
    return { status: 'failed', jobId, reason: 'generation_failed', error: 'The job was failed before it was recorded' };
  } catch (err) {
    const error = reason(err);
    const failure = failureOf(err);
    log.warn('chat job failed', { jobId, error, failure });
    const out = await db.failChatJob({ jobId, error, failure, attempts, timings });
    if (out.status === 'completed')
      return { status: 'completed', jobId, threadId: out.threadId, messageId: out.messageId, provider: out.provider };
    return { status: 'failed', jobId, reason: failure, error };
  }
}
