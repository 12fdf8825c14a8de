// Shared between the API, the workflow and the activities: plain data only (workflows import this too).
export const ZONES = ['front', 'back', 'left-chest', 'right-chest'] as const;
export type Zone = (typeof ZONES)[number];

export interface Placement {
  x: number;
  y: number;
  scale: number;
  rotation: number;
}

export type GenerationStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface GenerationWorkflowInput {
  generationId: string;
  accountId: string;
  garmentId: string;
  webhookUrl: string | null;
}

export interface GenerationWorkflowResult {
  status: 'completed' | 'failed';
  error?: string;
}

/** Error types the generation activities throw for input that no retry can fix. */
export const NON_RETRYABLE_GENERATION_ERRORS = ['DesignImageError', 'BadInputError', 'InsufficientTokensError'];

/** PostgreSQL NOTIFY channel: the generation id, sent in the statement that marks a generation completed or failed
 * (activities/generation.ts), heard by the API to answer synchronous requests (api/generation-notices.ts). */
export const GENERATION_FINISHED_CHANNEL = 'generation_finished';
