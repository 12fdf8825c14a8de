// The image-provider activities of the chatDesign workflow: one attempt with a provider per activity attempt (the
// workflow sets each provider's timeout and retry policy from beginChatJob's plan). The graphic is checked to be an
// image and stored under a key unique to the provider and attempt; provider failures become retryable (429, 5xx,
// timeouts) or non-retryable (a refusal, another 4xx) activity failures.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { renderLocalGraphic } from '../lib/chat/local-renderer';
import { chatKeys } from '../lib/chat/plan';
import {
  generateWithGemini,
  generateWithOpenAI,
  geminiClient,
  openaiClient,
  ProviderError,
  type ImageAnswer,
  type ImageRequest,
} from '../lib/chat/providers';
import { ChatErrors, type GraphicOut, type ProviderCall, type ProviderName } from '../lib/chat/types';
import { detectFormat, inspectImage } from '../lib/images';
import { providerOutcome } from '../lib/metrics';
import { inSpan } from '../lib/spans';
import { nonRetryable, type ImageActivityDeps as ChatActivityDeps } from './deps';

/** A stored file of the job, or a non-retryable failure when it is missing. */
export async function readChatFile(deps: Pick<ChatActivityDeps, 'storage'>, key: string): Promise<Buffer> {
  const obj = await deps.storage.get(key);
  if (!obj) throw nonRetryable(ChatErrors.JobState, `stored file ${key} is missing`);
  return obj.body;
}

export function createChatProviderActivities(deps: ChatActivityDeps) {
  const { storage, config, log } = deps;

  /** Stores a provider's answer after checking it is an image; returns what the workflow records. */
  async function storeGraphic(jobId: string, provider: ProviderName, data: Buffer, started: number) {
    const attempt = Context.current().info.attempt;
    const format = detectFormat(data);
    let dims;
    try {
      if (!format) throw new Error('not an image');
      dims = inspectImage(data, { maxBytes: 64 * 1024 * 1024 });
    } catch (err) {
      throw nonRetryable(
        ChatErrors.ProviderRejected,
        `${provider} answered with something that is not a usable image`,
        {
          attempt,
          error: (err as Error).message,
        },
      );
    }
    const key = chatKeys.graphic(jobId, provider, attempt, format!.ext);
    await storage.put(key, data, format!.mimeType);
    const out: GraphicOut = {
      provider,
      key,
      mimeType: format!.mimeType,
      width: dims.width,
      height: dims.height,
      bytes: data.length,
      attempt,
      ms: Math.round(performance.now() - started),
    };
    return out;
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
    const references = await Promise.all(
      call.referenceKeys.map(async (k) => ({ data: await readChatFile(deps, k), mimeType: 'image/png' })),
    );
    let answer: ImageAnswer;
    try {
      const req: ImageRequest = {
        prompt: call.prompt,
        model: call.model,
        references,
        editsPrevious: call.editsPrevious,
        signal: ctx.cancellationSignal,
      };
      answer = await inSpan(`${provider} image`, { 'gen_ai.system': provider }, () => run(req));
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      const details = { attempt, status: err.status ?? null };
      log.warn('image provider failed', { jobId: call.jobId, provider, attempt, kind: err.kind, error: err.message });
      deps.metrics?.providerRequest(provider, providerOutcome(err.kind, attempt, config.chat.providerAttempts));
      if (err.kind === 'retryable')
        throw ApplicationFailure.create({ message: err.message, type: 'ProviderUnavailable', details: [details] });
      const type = err.kind === 'refused' ? ChatErrors.ProviderRefused : ChatErrors.ProviderRejected;
      throw nonRetryable(type, err.message, details);
    }
    const out = await storeGraphic(call.jobId, provider, answer.data, started);
    log.info('image provider answered', { jobId: call.jobId, provider, attempt, ms: out.ms, model: answer.model });
    deps.metrics?.providerRequest(provider, 'ok');
    return out;
  }

  return {
    /** Google Gemini through @google/genai: one attempt per activity attempt. */
    async generateWithGemini(call: ProviderCall): Promise<GraphicOut> {
      const g = config.chat.gemini;
      if (!g.apiKey) throw nonRetryable(ChatErrors.ProviderRejected, 'GEMINI_API_KEY is not set on this worker');
      const ai = geminiClient({ apiKey: g.apiKey, baseUrl: g.baseUrl, timeoutMs: g.timeoutMs });
      return callProvider('gemini', call, (req) => generateWithGemini(ai, req));
    },

    /** OpenAI images through openai: images.generate, or images.edit when there are references. */
    async generateWithOpenAI(call: ProviderCall): Promise<GraphicOut> {
      const o = config.chat.openai;
      if (!o.apiKey) throw nonRetryable(ChatErrors.ProviderRejected, 'OPENAI_API_KEY is not set on this worker');
      const client = openaiClient({ apiKey: o.apiKey, baseUrl: o.baseUrl, timeoutMs: o.timeoutMs });
      return callProvider('openai', call, (req) => generateWithOpenAI(client, req));
    },

    /** The built-in renderer (no provider configured): deterministic for the prompt and the previous graphic. */
    async renderLocally(call: ProviderCall): Promise<GraphicOut> {
      const started = performance.now();
      const previous =
        call.editsPrevious && call.referenceKeys[0] ? await readChatFile(deps, call.referenceKeys[0]) : undefined;
      const g = await renderLocalGraphic(call.prompt, { previous });
      return storeGraphic(call.jobId, 'local', g.png, started);
    },
  };
}
