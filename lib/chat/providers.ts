// Image providers through their official SDKs: Google Gemini (@google/genai) and OpenAI images (openai). Each call
// is one attempt (the SDKs' own retries are off: the workflow's retry policy counts attempts, so they are bounded
// and recorded), bounded by its timeout and the caller's abort signal. Failures are sorted for the workflow:
// `retryable` (429, 5xx, 408, timeouts, network errors: try the same provider again), `rejected` (any other 4xx:
// the request itself is refused, move on at once) and `refused` (the model declined the prompt or answered without
// an image: move on at once).
import { ApiError as GeminiApiError, GoogleGenAI, type Part } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import type { ChatModel } from './types';

export type ProviderFailureKind = 'retryable' | 'rejected' | 'refused';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

export interface ReferenceImage {
  data: Buffer;
  mimeType: string;
}

export interface ImageRequest {
  prompt: string;
  model: ChatModel;
  references: ReferenceImage[];
  /** the first reference is the design being edited (a thread's previous graphic) */
  editsPrevious: boolean;
  signal?: AbortSignal;
}

export interface ImageAnswer {
  data: Buffer;
  mimeType: string;
  /** the provider's model that made it */
  model: string;
}

export interface ProviderSettings {
  apiKey: string;
  /** endpoint override (stand-ins, proxies); unset = the provider's own */
  baseUrl?: string;
  timeoutMs: number;
}

/** The instruction sent with every prompt: a clean graphic, ready to print, not a photo of a garment. */
export function designInstruction(req: Pick<ImageRequest, 'prompt' | 'references' | 'editsPrevious'>): string {
  const lines = [
    'Create a clean, print-ready graphic for apparel (a t-shirt design): the artwork alone, centered, on a plain flat',
    'single-color background, with no garment, no mockup, no photo frame and no shadow. Any text must be spelled',
    'exactly as asked and clearly legible.',
  ];
  if (req.editsPrevious)
    lines.push('The first image is the current design: apply the requested change to it and keep everything else.');
  const refs = req.references.length - (req.editsPrevious ? 1 : 0);
  if (refs > 0) lines.push('Use the other attached images as style and content references.');
  lines.push(`Design request: ${req.prompt}`);
  return lines.join(' ');
}

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 429 || s >= 500;

function isTimeoutOrNetwork(err: unknown): boolean {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  return (
    e?.name === 'AbortError' ||
    e?.name === 'TimeoutError' ||
    (err instanceof TypeError && /fetch failed|network|terminated/i.test(err.message)) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT'].includes(
      e?.code ?? e?.cause?.code ?? '',
    )
  );
}

// ---- Google Gemini ----

/** Our model names -> Gemini models and the image size asked for. */
export const GEMINI_MODELS: Record<ChatModel, { model: string; imageSize?: '1K' | '2K' | '4K' }> = {
  'nano-banana': { model: 'gemini-2.5-flash-image' },
  'nano-banana-pro': { model: 'gemini-3-pro-image-preview', imageSize: '2K' },
  'nano-banana-pro-4k': { model: 'gemini-3-pro-image-preview', imageSize: '4K' },
};

/** The Gemini API version that serves image generation (imageConfig) through generateContent. */
export const GEMINI_API_VERSION = 'v1beta';

export function geminiClient(s: ProviderSettings): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: s.apiKey,
    httpOptions: { apiVersion: GEMINI_API_VERSION, timeout: s.timeoutMs, ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}) },
  });
}

export async function generateWithGemini(ai: GoogleGenAI, req: ImageRequest): Promise<ImageAnswer> {
  const m = GEMINI_MODELS[req.model];
  const parts: Part[] = [
    { text: designInstruction(req) },
    ...req.references.map((r) => ({ inlineData: { mimeType: r.mimeType, data: r.data.toString('base64') } })),
  ];
  let res;
  try {
    res = await ai.models.generateContent({
      model: m.model,
      contents: [{ role: 'user', parts }],
      config: {
        responseModalities: ['IMAGE'],
        imageConfig: { aspectRatio: '1:1', ...(m.imageSize ? { imageSize: m.imageSize } : {}) },
        ...(req.signal ? { abortSignal: req.signal } : {}),
      },
    });
  } catch (err) {
    if (err instanceof GeminiApiError) {
      const kind = RETRYABLE_STATUS(err.status) ? 'retryable' : 'rejected';
      throw new ProviderError(kind, `Gemini answered ${err.status}: ${summarize(err.message)}`, err.status, {
        cause: err,
      });
    }
    if (isTimeoutOrNetwork(err))
      throw new ProviderError('retryable', `Gemini did not answer: ${(err as Error).message}`, undefined, {
        cause: err,
      });
    throw err;
  }
  const blocked = res.promptFeedback?.blockReason;
  if (blocked) throw new ProviderError('refused', `Gemini refused the prompt (${blocked})`);
  const candidate = res.candidates?.[0];
  const image = candidate?.content?.parts?.find(
    (p) => p.inlineData?.data && p.inlineData.mimeType?.startsWith('image/'),
  );
  if (!image?.inlineData?.data) {
    const reason = candidate?.finishReason ?? 'no candidate';
    throw new ProviderError('refused', `Gemini answered without an image (${reason})`);
  }
  return { data: Buffer.from(image.inlineData.data, 'base64'), mimeType: image.inlineData.mimeType!, model: m.model };
}

// ---- OpenAI ----

export const OPENAI_IMAGE_MODEL = 'gpt-image-1';
export const OPENAI_QUALITY: Record<ChatModel, 'low' | 'medium' | 'high'> = {
  'nano-banana': 'low',
  'nano-banana-pro': 'medium',
  'nano-banana-pro-4k': 'high',
};

export function openaiClient(s: ProviderSettings): OpenAI {
  return new OpenAI({
    apiKey: s.apiKey,
    ...(s.baseUrl ? { baseURL: s.baseUrl } : {}),
    maxRetries: 0,
    timeout: s.timeoutMs,
  });
}

export async function generateWithOpenAI(client: OpenAI, req: ImageRequest): Promise<ImageAnswer> {
  const prompt = designInstruction(req);
  const common = {
    model: OPENAI_IMAGE_MODEL,
    prompt,
    quality: OPENAI_QUALITY[req.model],
    size: '1024x1024' as const,
    n: 1,
  };
  let res;
  try {
    if (req.references.length > 0) {
      const files = await Promise.all(
        req.references.map((r, i) =>
          toFile(r.data, `reference-${i}.${r.mimeType === 'image/jpeg' ? 'jpg' : 'png'}`, { type: r.mimeType }),
        ),
      );
      res = await client.images.edit(
        { ...common, image: files.length === 1 ? files[0]! : files },
        { signal: req.signal },
      );
    } else {
      res = await client.images.generate({ ...common, output_format: 'png' }, { signal: req.signal });
    }
  } catch (err) {
    if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof OpenAI.APIConnectionError)
      throw new ProviderError('retryable', `OpenAI did not answer: ${err.message}`, undefined, { cause: err });
    if (err instanceof OpenAI.APIUserAbortError)
      throw new ProviderError('retryable', 'OpenAI call aborted', undefined, { cause: err });
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
      const code = (err.error as { code?: string } | undefined)?.code ?? err.code;
      const refused = code === 'moderation_blocked' || code === 'content_policy_violation';
      const kind = refused ? 'refused' : RETRYABLE_STATUS(err.status) ? 'retryable' : 'rejected';
      throw new ProviderError(kind, `OpenAI answered ${err.status}: ${summarize(err.message)}`, err.status, {
        cause: err,
      });
    }
    if (isTimeoutOrNetwork(err))
      throw new ProviderError('retryable', `OpenAI did not answer: ${(err as Error).message}`, undefined, {
        cause: err,
      });
    throw err;
  }
  const b64 = res.data?.[0]?.b64_json;
  if (!b64) throw new ProviderError('refused', 'OpenAI answered without an image');
  return { data: Buffer.from(b64, 'base64'), mimeType: 'image/png', model: OPENAI_IMAGE_MODEL };
}

const summarize = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);
