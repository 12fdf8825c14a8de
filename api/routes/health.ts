import { Router } from 'express';
import { temporal as proto } from '@temporalio/proto';
import { pingDatabase } from '../../db/client';
import type { AppDeps } from '../context';
import { orTimeout } from '../../lib/wait';

const CHECK_TIMEOUT_MS = 2000;
// A poller that has not been seen for this long is gone (Temporal keeps pollers listed for a few minutes).
const POLLER_FRESH_MS = 70_000;

const withTimeout = <T>(p: Promise<T>, what: string): Promise<T> =>
  orTimeout(CHECK_TIMEOUT_MS, p, `${what} did not answer within ${CHECK_TIMEOUT_MS} ms`);

/** How long one readiness result answers /readyz. */
export const READY_CACHE_MS = 1000;

interface Readiness {
  ready: boolean;
  body: Record<string, unknown>;
}

async function checkReadiness(deps: AppDeps): Promise<Readiness> {
  const checks: Record<string, { ok: boolean; error?: string; pollers?: number }> = {};
  const failed = (what: string, err: unknown) => {
    deps.log.warn('readiness check failed', { check: what, err });
  };
  await Promise.all([
    withTimeout(pingDatabase(deps.sql), 'PostgreSQL')
      .then(() => (checks.database = { ok: true }))
      .catch((err: unknown) => {
        failed('database', err);
        checks.database = { ok: false, error: 'PostgreSQL is not answering' };
      }),
    withTimeout(activePollers(deps), 'Temporal')
      .then(
        (n) =>
          (checks.worker =
            n > 0 ? { ok: true, pollers: n } : { ok: false, pollers: 0, error: 'no worker is polling task queue' }),
      )
      .catch((err: unknown) => {
        failed('worker', err);
        checks.worker = { ok: false, error: 'Temporal is not answering' };
      }),
  ]);
  const ready = Object.values(checks).every((c) => c.ok);
  const missing = Object.entries(checks)
    .filter(([, c]) => !c.ok)
    .map(([k]) => k);
  return { ready, body: { status: ready ? 'ready' : 'not_ready', ...(missing.length ? { missing } : {}), checks } };
}

export function healthRoutes(deps: AppDeps): Router {
  const r = Router();

  // Liveness: the process is up and its event loop turns. Nothing external is checked on purpose.
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Readiness: PostgreSQL answers and at least one worker polls our task queue. Unauthenticated, so it says only
  // which dependency is missing (the raw errors, which can name internal addresses, go to the log), and its checks
  // run at most once per READY_CACHE_MS however often it is asked: concurrent and repeated hits share one result.
  let cached: { at: number; result: Promise<Readiness> } | undefined;
  r.get('/readyz', async (req, res) => {
    if (!cached || Date.now() - cached.at > READY_CACHE_MS) cached = { at: Date.now(), result: checkReadiness(deps) };
    const { ready, body } = await cached.result;
    res.status(ready ? 200 : 503).json(body);
  });

  return r;
}

async function activePollers(deps: AppDeps): Promise<number> {
  const res = await deps.temporal.workflowService.describeTaskQueue({
    namespace: deps.config.temporal.namespace,
    taskQueue: { name: deps.config.temporal.taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (res.pollers ?? []).filter((p) => {
    const t = p.lastAccessTime;
    if (!t?.seconds) return true;
    return now - Number(t.seconds) * 1000 < POLLER_FRESH_MS;
  }).length;
}
