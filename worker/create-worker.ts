import type { Duration } from '@temporalio/common';
import {
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions as SdkWorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { createActivities, type Activities, type ActivityDeps } from '../activities';
import type { InboundWorkflows } from '../activities/inbound';
import { accountDeletion, sendMail, shopifyWebhook, stripeEvent } from '../workflows';
import { legacySpanProcessor, temporalTracing, type Tracing } from '../lib/tracing';
import { bundleWorkflowsApart } from './workflow-bundle';

export interface WorkerOptions extends ActivityDeps {
  connection: NativeConnection;
  taskQueue: string;
  /** Pre-bundled workflow code (tests bundle once per run); otherwise the worker bundles workflows/ itself. */
  workflowBundle?: WorkflowBundle;
  /** Used by the crash tests to stop a worker quickly. */
  shutdownGraceTime?: Duration;
  /** Replaces some activities (tests: fault injection, fakes of outside services), keeping the rest real. */
  activityOverrides?: Partial<Activities>;
  /** Traces (lib/tracing.ts): the workflow and activity interceptors, and the sink that exports workflow spans. A
   * pre-built workflowBundle must then have been bundled with TRACING_WORKFLOW_MODULES. */
  tracing?: Tracing;
}

/** The workflow interceptors of @temporalio/interceptors-opentelemetry, bundled with the workflows when tracing. */
export const TRACING_WORKFLOW_MODULES = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** Whether this process exports traces: the Workers then get the interceptors, and the bundle their workflow module. */
function exporting(
  tracing: Tracing | undefined,
): tracing is Tracing & Required<Pick<Tracing, 'processor' | 'resource'>> {
  return !!(tracing?.enabled && tracing.processor && tracing.resource);
}

/** Spans for every workflow run and activity (RunWorkflow:…, StartActivity:…, RunActivity:…), continuing the trace
 * the client's StartWorkflow span put in the headers; workflow spans leave the sandbox through the `exporter` sink. */
function tracingOptions(tracing: Tracing | undefined): Partial<SdkWorkerOptions> {
  if (!exporting(tracing)) return {};
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    temporalTracing();
  type Exported = Parameters<typeof makeWorkflowExporter>;
  return {
    interceptors: {
      workflowModules: TRACING_WORKFLOW_MODULES,
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: {
      // the interceptor package is built on OpenTelemetry 1.x types; the objects are the current SDK's
      exporter: makeWorkflowExporter(
        legacySpanProcessor(tracing.processor) as unknown as Exported[0],
        tracing.resource as unknown as Exported[1],
      ),
    },
  };
}

/** The workflows the activities start (inbound events, mails, account deletion), by reference. */
export const inboundWorkflows: InboundWorkflows = { stripeEvent, shopifyWebhook, sendMail, accountDeletion };

export async function createWorker(opts: WorkerOptions): Promise<Worker> {
  const [worker] = await createWorkers({ ...opts, queues: 'renders' });
  return worker!;
}

/**
 * Generation steps are local activities (workflows/generation.ts). Image work is CPU-bound on a 2-core machine: the
 * compositing gate lets 2 per core composite at once and queues the rest in order; these slots bound how many
 * generations wait in that queue (each waiting one holds only its small job description). Regular activities:
 * webhook deliveries and maintenance (network and database waits, little CPU).
 */
const renderQueueSlots: Partial<SdkWorkerOptions> = {
  maxConcurrentLocalActivityExecutions: 32,
  maxConcurrentActivityTaskExecutions: 8,
};

/**
 * The template queue runs one small workflow per import around one activity: imports two at once per process (each
 * may hold a large PSD's pixels), so two workflow tasks at a time and a small workflow cache are plenty (the SDK's
 * defaults, 40 tasks and a cache sized from the heap, are for a queue of many workflows); two pollers of each kind
 * follow from the slots.
 */
const templateQueueSlots: Partial<SdkWorkerOptions> = {
  maxConcurrentActivityTaskExecutions: 2,
  maxConcurrentWorkflowTaskExecutions: 2,
  maxCachedWorkflows: 20,
  maxConcurrentLocalActivityExecutions: 2,
};

/**
 * The workflows bundled once for every Worker of the process (with the tracing interceptors when tracing), in a child
 * process (worker/workflow-bundle.ts): a Worker given `workflowsPath` runs webpack in this process, and what the
 * bundling leaves here stays resident (~100 MiB at startup; with two queues that was two bundlings, ~30-45 MiB more;
 * docs/benchmarks.md, "The worker's memory at startup").
 */
function bundleWorkflows(tracing: Tracing | undefined): Promise<WorkflowBundle> {
  return bundleWorkflowsApart(
    {
      workflowsPath: require.resolve('../workflows'),
      // the interceptors' module exactly when tracingOptions() gives the Workers their sink
      workflowInterceptorModules: exporting(tracing) ? TRACING_WORKFLOW_MODULES : [],
    },
    Runtime.instance().logger,
  );
}

/**
 * The worker's Workers: one per task queue it serves, sharing one set of activities (and so one blank cache and one
 * prepared-template cache) and one bundle of the workflows: TEMPORAL_TASK_QUEUE (generations and everything else)
 * and TEMPLATE_TASK_QUEUE (template imports), both unless `queues` (WORKER_QUEUES) names one. Renders come first.
 */
export async function createWorkers(
  opts: WorkerOptions & { queues?: 'all' | 'renders' | 'templates' },
): Promise<Worker[]> {
  const { connection, taskQueue, workflowBundle, shutdownGraceTime, activityOverrides, tracing, queues, ...deps } =
    opts;
  const activities = { ...createActivities({ inboundWorkflows, ...deps }), ...activityOverrides };
  const serve = queues ?? deps.config.templates.workerQueues;
  const names = [
    ...new Set([
      ...(serve !== 'templates' ? [taskQueue] : []),
      ...(serve !== 'renders' ? [deps.config.templates.taskQueue] : []),
    ]),
  ];
  const bundle = workflowBundle ?? (await bundleWorkflows(tracing));
  return Promise.all(
    names.map((queue) =>
      Worker.create({
        ...tracingOptions(tracing),
        connection,
        namespace: deps.config.temporal.namespace,
        taskQueue: queue,
        workflowBundle: bundle,
        activities,
        shutdownGraceTime: shutdownGraceTime ?? '30 seconds',
        ...(queue === taskQueue ? renderQueueSlots : templateQueueSlots),
      }),
    ),
  );
}
