// The design chat (docs/chat.md): its image providers, their timeouts and attempts, how long a request waits, the
// orphan sweep and the rate limits.
import { z } from 'zod';
import { duration, int, type EnvOf } from './parse';

export const chatEnv = {
  // Design chat (docs/chat.md). Providers in order: Gemini when GEMINI_API_KEY is set, OpenAI when
  // OPENAI_API_KEY is set; with neither, the built-in local renderer. The base URLs point the SDKs elsewhere
  // (stand-ins, proxies). Timeouts are per attempt; each provider gets CHAT_PROVIDER_ATTEMPTS attempts on 429, 5xx
  // and timeouts before the next one is tried.
  GEMINI_API_KEY: z.string().min(1).optional(),
  GEMINI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  GEMINI_TIMEOUT_MS: int(90_000, 100, 600_000),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_TIMEOUT_MS: int(120_000, 100, 600_000),
  CHAT_PROVIDER_ATTEMPTS: int(3, 1, 10),
  CHAT_SYNC_TIMEOUT_MS: int(120_000, 100, 600_000),
  // The chat-jobs sweep (every minute) fails a job still running this long after it was created whose workflow has
  // closed or was never started, refunding its debit if one was taken.
  CHAT_ORPHAN_AFTER: duration('2m', 5000),
  CHAT_RATE_PER_MINUTE: int(10, 1),
  CHAT_RATE_PER_HOUR: int(100, 1),
};

export function chatConfig(e: EnvOf<typeof chatEnv>) {
  return {
    chat: {
      gemini: chatProvider(e.GEMINI_API_KEY, e.GEMINI_BASE_URL, e.GEMINI_TIMEOUT_MS),
      openai: chatProvider(e.OPENAI_API_KEY, e.OPENAI_BASE_URL, e.OPENAI_TIMEOUT_MS),
      /** attempts per provider on 429, 5xx and timeouts */
      providerAttempts: e.CHAT_PROVIDER_ATTEMPTS,
      /** how long POST /api/chat waits for the job before answering 202 */
      syncTimeoutMs: e.CHAT_SYNC_TIMEOUT_MS,
      /** a job still running this long after it was created, with no running workflow, is failed by the sweep */
      orphanAfterMs: e.CHAT_ORPHAN_AFTER,
      /** requests per user per minute (every authenticated POST /api/chat counts) */
      perMinute: e.CHAT_RATE_PER_MINUTE,
      /** requests per account per hour */
      perHour: e.CHAT_RATE_PER_HOUR,
    },
  };
}

function chatProvider(apiKey: string | undefined, baseUrl: string | undefined, timeoutMs: number) {
  return {
    /** unset: the provider is not used */
    apiKey,
    /** endpoint override (the SDK's baseUrl / baseURL); unset: the provider's own */
    baseUrl,
    /** per attempt */
    timeoutMs,
  };
}
