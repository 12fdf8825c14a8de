// Templates (docs/templates.md): import size, the imports' task queue, the synchronous wait, the count per account
// and the in-memory cache.
import { z } from 'zod';
import { int, INT4_MAX, type EnvOf } from './parse';

export const templatesEnv = {
  // Templates (docs/templates.md): the largest PSD/PSB accepted (200 MiB), the imports' own task queue (the worker
  // serves it beside TEMPORAL_TASK_QUEUE unless WORKER_QUEUES says otherwise), how long POST /templates waits for an
  // import before answering 202, templates per account, and the bytes of prepared templates a process keeps in memory.
  TEMPLATE_MAX_BYTES: int(200 * 1024 ** 2, 1024, 2 * 1024 ** 3),
  TEMPLATE_TASK_QUEUE: z.string().min(1).optional(),
  WORKER_QUEUES: z.enum(['all', 'renders', 'templates']).default('all'),
  TEMPLATE_SYNC_TIMEOUT_MS: int(20_000, 0, 600_000),
  TEMPLATES_PER_ACCOUNT: int(100, 1, INT4_MAX),
  TEMPLATE_CACHE_BYTES: int(512 * 1024 ** 2, 0),
};

export function templatesConfig(e: EnvOf<typeof templatesEnv> & { TEMPORAL_TASK_QUEUE: string }) {
  return {
    templates: {
      maxBytes: e.TEMPLATE_MAX_BYTES,
      /** unset: TEMPORAL_TASK_QUEUE + `-templates` */
      taskQueue: e.TEMPLATE_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-templates`,
      /** which queues this worker process serves */
      workerQueues: e.WORKER_QUEUES,
      syncTimeoutMs: e.TEMPLATE_SYNC_TIMEOUT_MS,
      perAccount: e.TEMPLATES_PER_ACCOUNT,
      cacheBytes: e.TEMPLATE_CACHE_BYTES,
    },
  };
}
