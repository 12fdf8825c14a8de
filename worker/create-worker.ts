import type { Duration } from '@temporalio/common';
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type Activities, type ActivityDeps } from '../activities';
import { accountDeletion, sendMail, shopifyWebhook, stripeEvent } from '../workflows';

export interface WorkerOptions extends ActivityDeps {
  connection: NativeConnection;
  taskQueue: string;
  /** Pre-bundled workflow code (tests bundle once per run); otherwise the worker bundles workflows/ itself. */
  workflowBundle?: WorkflowBundle;
  /** Used by the crash tests to stop a worker quickly. */
  shutdownGraceTime?: Duration;
  /** Replaces some activities (tests: fault injection, fakes of outside services), keeping the rest real. */
  activityOverrides?: Partial<Activities>;
}

export async function createWorker(opts: WorkerOptions): Promise<Worker> {
  const { connection, taskQueue, workflowBundle, shutdownGraceTime, activityOverrides, ...deps } = opts;
  return Worker.create({
    connection,
    namespace: deps.config.temporal.namespace,
    taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: {
      ...createActivities({ inboundWorkflows: { stripeEvent, shopifyWebhook, sendMail, accountDeletion }, ...deps }),
      ...activityOverrides,
    },
    shutdownGraceTime: shutdownGraceTime ?? '30 seconds',
    // Generation steps are local activities (workflows/generation.ts). Image work is CPU-bound on a 2-core machine:
    // the compositing gate lets 2 per core composite at once and queues the rest in order; these slots bound how many
    // generations wait in that queue (each waiting one holds only its small job description).
    maxConcurrentLocalActivityExecutions: 32,
    // Regular activities: webhook deliveries and maintenance (network and database waits, little CPU).
    maxConcurrentActivityTaskExecutions: 8,
  });
}
