// The design chat's shared contract (workflows import this: plain data only): models and their costs, the
// chatDesign workflow's input and result, what each step hands to the next, and the names of the errors no retry
// can fix.

export const CHAT_MODELS = ['nano-banana', 'nano-banana-pro', 'nano-banana-pro-4k'] as const;
export type ChatModel = (typeof CHAT_MODELS)[number];
export const DEFAULT_CHAT_MODEL: ChatModel = 'nano-banana';

/** Spec "Models and token cost per job". */
export const MODEL_COST: Record<ChatModel, number> = {
  'nano-banana': 12,
  'nano-banana-pro': 45,
  'nano-banana-pro-4k': 90,
};

/** Long side of the print asset at least (2048 px, 4096 for the 4k model). */
export const PRINT_LONG_SIDE: Record<ChatModel, number> = {
  'nano-banana': 2048,
  'nano-banana-pro': 2048,
  'nano-banana-pro-4k': 4096,
};

/** Resolution written into the print asset's metadata. */
export const PRINT_DPI = 300;

export const PROVIDERS = ['gemini', 'openai', 'local'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Most URLs in each of `images`, `garmentUrls`, `designUrls`. */
export const MAX_CHAT_URLS = 4;
export const MIN_PROMPT_LENGTH = 8;
export const MAX_PROMPT_LENGTH = 4000;

/** The chatDesign workflow's input: the request as the API parsed it (POST /api/chat), its job and account. */
export interface ChatWorkflowInput {
  jobId: string;
  accountId: string;
  prompt: string;
  model: ChatModel;
  /** legacy reference image URLs */
  images: string[];
  garmentUrls: string[];
  /** existing designs used as style reference */
  designUrls: string[];
  /** an existing thread of the account (checked by the API), or null for a new one */
  threadId: string | null;
}

/** How the worker calls one provider: its per-attempt timeout and how many attempts 429/5xx/timeouts get. */
export interface ProviderPlan {
  name: ProviderName;
  timeoutMs: number;
  attempts: number;
}

/**
 * What beginChatJob found: the providers to try in order and the thread's last graphic. (`ok: false` comes only from
 * histories recorded when this step took the debit and could find the balance too low; the API charges now.)
 */
export type ChatJobStart =
  | { ok: true; providers: ProviderPlan[]; previousGraphicKey: string | null }
  | { ok: false; tokensNeeded: number; tokensAvailable: number };

/** Reference images as stored for the providers (normalized PNG/JPEG under the job's keys), in order. */
export interface ReferenceSet {
  keys: string[];
  ms: number;
}

export interface ProviderCall {
  jobId: string;
  prompt: string;
  model: ChatModel;
  /** storage keys of the reference images (the previous graphic first when continuing a thread) */
  referenceKeys: string[];
  /** true when the first reference is the thread's previous graphic, to be edited */
  editsPrevious: boolean;
}

/** A provider's graphic, stored under a key unique to the provider and attempt. */
export interface GraphicOut {
  provider: ProviderName;
  key: string;
  mimeType: string;
  width: number;
  height: number;
  bytes: number;
  /** which attempt of the activity produced it (1 = first) */
  attempt: number;
  ms: number;
}

/** One provider's part in a job, as recorded in render_jobs.attempts. */
export interface ProviderAttempt {
  provider: ProviderName;
  ok: boolean;
  /** attempts the activity made (1 when it succeeded or failed at once) */
  tries: number;
  error?: string;
  /** failure type, e.g. ProviderRefused, ProviderRejected, ProviderUnavailable, timeout */
  type?: string;
}

export interface PrintAssetOut {
  key: string;
  width: number;
  height: number;
  bytes: number;
  dpi: number;
  backgroundRemoved: boolean;
  upscaled: boolean;
  ms: number;
}

export type MockupPlacement = 'front' | 'left-chest';

export interface MockupOut {
  key: string;
  garmentUrl: string;
  placement: MockupPlacement;
  width: number;
  height: number;
  bytes: number;
}

export interface MockupsOut {
  mockups: MockupOut[];
  ms: number;
}

/** Everything the record step writes, in one transaction. */
export interface ChatRecord {
  jobId: string;
  accountId: string;
  threadId: string | null;
  prompt: string;
  model: ChatModel;
  refs: { images: string[]; designUrls: string[]; garmentUrls: string[] };
  tokens: number;
  graphic: GraphicOut;
  print: PrintAssetOut;
  mockups: MockupOut[];
  attempts: ProviderAttempt[];
  timings: Record<string, number>;
}

export type ChatFailureReason = 'insufficient_tokens' | 'bad_input' | 'generation_failed';

export type ChatWorkflowResult =
  | { status: 'completed'; jobId: string; threadId: string; messageId: string; provider: ProviderName }
  | {
      status: 'failed';
      jobId: string;
      reason: ChatFailureReason;
      error: string;
      tokensNeeded?: number;
      tokensAvailable?: number;
    };

/** Errors no retry can fix. */
export const ChatErrors = {
  /** an input (a reference image, a blank) that cannot be used */
  BadInput: 'ChatBadInput',
  /** the provider declined the prompt (safety) or answered without an image */
  ProviderRefused: 'ProviderRefused',
  /** the provider refused the request (4xx other than 408/429): move on at once */
  ProviderRejected: 'ProviderRejected',
  /** the provider's image has nothing but background */
  EmptyGraphic: 'EmptyGraphic',
  /** the job row is missing or in a state this step cannot start from */
  JobState: 'ChatJobState',
} as const;

export const NON_RETRYABLE_CHAT_ERRORS: string[] = Object.values(ChatErrors);

/** The user-facing message of a failed job (spec: 500 {error: "Generation failed"}). */
export const GENERATION_FAILED = 'Generation failed';
