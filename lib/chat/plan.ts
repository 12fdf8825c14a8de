// What a chat job's worker decides before it runs: which providers to try, in which order and how patiently, and
// where a job's files are stored (keys derived from the job id, so a re-run writes the same files).
import type { Config } from '../config';
import type { ProviderName, ProviderPlan } from './types';

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
