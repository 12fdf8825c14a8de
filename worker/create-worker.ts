import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

export interface WorkerOptions extends ActivityDeps {
  connection: NativeConnection;
  taskQueue: string;
  /** Pre-bundled workflow code (tests bundle once per run); otherwise the worker bundles workflows/ itself. */
  workflowBundle?: WorkflowBundle;
  /** Used by the crash tests to stop a worker quickly. */
  shutdownGraceTime?: string;
}

export async function createWorker(opts: WorkerOptions): Promise<Worker> {
  const { connection, taskQueue, workflowBundle, shutdownGraceTime, ...deps } = opts;
  return Worker.create({
    connection,
    namespace: deps.config.temporal.namespace,
    taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(deps),
    shutdownGraceTime: shutdownGraceTime ?? '30 seconds',
    // Image work is CPU-bound on a 2-core machine: a few activities at a time keep latency predictable.
    maxConcurrentActivityTaskExecutions: 8,
  });
}
