// Where the time of one synchronous POST /generate goes, from three sources that share the machine's clock:
// the client's send/receive times, the generation workflow's history (event times written by the Temporal server),
// the API's request log (durationMs) and the render step's own log (blank / readDesign / composite / store /
// complete ms).
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { median, round } from './lib';

const E = temporal.api.enums.v1.EventType;

type Ev = temporal.api.history.v1.IHistoryEvent;
const time = (e: Ev): number => {
  const t = e.eventTime!;
  return Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;
};

/** Durations (ms) of one workflow run, read from its history. */
export interface HistoryTimes {
  /** epoch ms of WorkflowExecutionStarted and -Completed */
  startedAt: number;
  completedAt: number;
  /** sum over workflow tasks of scheduled -> started (waiting for a worker poll) */
  workflowTaskWaitMs: number;
  /** sum over workflow tasks of started -> completed (the worker running workflow code) */
  workflowTaskRunMs: number;
  workflowTasks: number;
  /** local activities (MarkerRecorded): they run inside the workflow tasks. Their markers' complete_time reads
   * ~12-15 ms early, so their timing comes from the render step's own log instead. */
  localActivities: string[];
  /** epoch ms of the last WorkflowTaskCompleted */
  lastTaskCompletedAt: number;
  /** per activity type: scheduled -> started (queue wait) and started -> completed (execution) */
  activities: Record<string, { waitMs: number; runMs: number }>;
}

export function historyTimes(events: Ev[]): HistoryTimes {
  const out: HistoryTimes = {
    startedAt: NaN,
    completedAt: NaN,
    workflowTaskWaitMs: 0,
    workflowTaskRunMs: 0,
    workflowTasks: 0,
    localActivities: [],
    lastTaskCompletedAt: NaN,
    activities: {},
  };
  const byId = new Map<number, Ev>();
  let wftScheduled = NaN;
  let wftStarted = NaN;
  for (const e of events) {
    byId.set(Number(e.eventId), e);
    switch (e.eventType) {
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        out.startedAt = time(e);
        break;
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
        out.completedAt = time(e);
        break;
      case E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
        wftScheduled = time(e);
        break;
      case E.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        wftStarted = time(e);
        out.workflowTaskWaitMs += wftStarted - wftScheduled;
        break;
      case E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        out.workflowTaskRunMs += time(e) - wftStarted;
        out.lastTaskCompletedAt = time(e);
        out.workflowTasks++;
        break;
      case E.EVENT_TYPE_MARKER_RECORDED: {
        const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
        try {
          if (data) {
            const m = JSON.parse(Buffer.from(data).toString());
            out.localActivities.push(String(m.activity_type ?? m.activityType));
          }
        } catch {
          /* not a local activity marker */
        }
        break;
      }
      case E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const a = e.activityTaskCompletedEventAttributes!;
        const sched = byId.get(Number(a.scheduledEventId));
        const start = byId.get(Number(a.startedEventId));
        if (!sched || !start) break;
        const name = sched.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
        const cur = (out.activities[name] ??= { waitMs: 0, runMs: 0 });
        cur.waitMs += time(start) - time(sched);
        cur.runMs += time(e) - time(start);
        break;
      }
    }
  }
  return out;
}

export interface Sample {
  generationId: string;
  requestId: string;
  /** client clock, epoch ms */
  sentAt: number;
  receivedAt: number;
}

export interface BreakdownRow {
  part: string;
  p50Ms: number;
  how: string;
  /** false for rows that detail (or overlap) another row and are not part of the sum */
  additive?: boolean;
}

/**
 * Median of each part over the samples. `apiDurations` maps request id -> the API's logged durationMs; `renderMs`
 * maps generation id -> the activity's logged {load, composite, store}. `auth`, `limiter`, `startRpc` are medians
 * measured separately (same code, same database / server) because the API does not log them per request.
 */
export async function breakdown(
  client: Client,
  samples: Sample[],
  apiDurations: Map<string, number>,
  renderMs: Map<string, Record<string, number>>,
  micro: {
    authMs: number;
    limiterMs: number;
    startRpcMs: number;
    /** the admission statement's parts: its slots, then each window it counts */
    admit?: { part: string; ms: number }[];
    idempotencyClaimMs?: number;
    garmentMs?: number;
    designCheckMs?: number;
    insertChargeMs?: number;
  },
): Promise<{ rows: BreakdownRow[]; totalP50Ms: number; samples: number; perSample: Record<string, number>[] }> {
  const per: Record<string, number>[] = [];
  let localNames = '';
  let otherNames = '';
  for (const s of samples) {
    const h = historyTimes((await client.workflow.getHandle(s.generationId).fetchHistory()).events ?? []);
    const acts = h.activities;
    const r = renderMs.get(s.generationId) ?? {};
    const api = apiDurations.get(s.requestId);
    // the render step: a regular activity (older layouts) or a local one inside the workflow task
    const renderRun = acts.renderMockup?.runMs ?? NaN;
    const steps = (r.blank ?? 0) + (r.composite ?? 0) + (r.store ?? 0) + (r.complete ?? 0);
    const others = Object.entries(acts).filter(([k]) => k !== 'renderMockup');
    per.push({
      total: s.receivedAt - s.sentAt,
      beforeStart: h.startedAt - s.sentAt,
      workflowTaskWait: h.workflowTaskWaitMs,
      workflowTaskRun: h.workflowTaskRunMs,
      // workflow task time that is neither a local step: workflow code, the task's completion RPC, the server's write
      workflowTaskOther: h.lastTaskCompletedAt - (r.endAt ?? NaN),
      workflowTasks: h.workflowTasks,
      localActivities: h.localActivities.length,
      activities: Object.keys(acts).length,
      activityWait: Object.values(acts).reduce((a, x) => a + x.waitMs, 0),
      otherActivitiesRun: others.reduce((a, [, x]) => a + x.runMs, 0),
      renderRun,
      blank: r.blank ?? NaN,
      readDesign: r.readDesign ?? 0,
      composite: r.composite ?? NaN,
      compositeOnly: (r.composite ?? NaN) - (r.readDesign ?? 0),
      store: r.store ?? NaN,
      complete: r.complete ?? NaN,
      renderOther: renderRun - steps,
      workflow: h.completedAt - h.startedAt,
      answer: s.receivedAt - h.completedAt,
      // local layout: the render step's own time is the sum of its logged laps, its end the log line's time; the API
      // answers on the notice sent when the render step marks the generation finished
      renderLogged: steps,
      toRenderStart: (r.endAt ?? NaN) - steps - (h.startedAt + h.workflowTaskWaitMs),
      answerFromRender: s.receivedAt - (r.endAt ?? NaN),
      afterAnswer: h.completedAt - s.receivedAt,
      apiLogged: api ?? NaN,
      clientSide: api !== undefined ? s.receivedAt - s.sentAt - api : NaN,
    });
    if (!localNames) localNames = [...new Set(h.localActivities)].join(', ');
    if (!otherNames) otherNames = others.map(([k]) => k).join(', ');
  }
  const m = (k: string) => round(median(per.map((p) => p[k]!).filter(Number.isFinite)));
  const renderLocal = per.some((p) => p.activities === 0);
  const additive = renderLocal
    ? ['beforeStart', 'workflowTaskWait', 'toRenderStart', 'renderLogged', 'answerFromRender']
    : [
        'beforeStart',
        'workflowTaskWait',
        'workflowTaskRun',
        'activityWait',
        'otherActivitiesRun',
        'renderRun',
        'answer',
      ];
  const unaccounted = round(
    median(per.map((p) => p.total! - additive.reduce((a, k) => a + (Number.isFinite(p[k]!) ? p[k]! : 0), 0))),
  );
  const detail = (part: string, k: string, how: string): BreakdownRow => ({
    part: `  ${part}`,
    p50Ms: m(k),
    how,
    additive: false,
  });
  const renderRows: BreakdownRow[] = [
    renderLocal
      ? { part: 'renderMockup step (local activity)', p50Ms: m('renderLogged'), how: "sum of the step's logged laps" }
      : { part: 'renderMockup activity', p50Ms: m('renderRun'), how: 'history: Started -> Completed' },
    detail('prepared blank (cache)', 'blank', "activity log 'mockup rendered' ms.blank"),
    detail(
      'read design (4 MB from storage; only when not prepared)',
      'readDesign',
      'activity log ms.readDesign (0 when the design was prepared)',
    ),
    detail(
      'composite (design to placed size, warp/shade, JPEG x2)',
      'compositeOnly',
      'activity log ms.composite minus ms.readDesign',
    ),
    detail('store mockup + thumbnail', 'store', 'activity log ms.store'),
    detail('mark completed (1 update)', 'complete', 'activity log ms.complete'),
  ];
  const rows: BreakdownRow[] = [
    {
      part: 'API until the workflow exists: HTTP, auth, rate limiter, validation, garment lookup, row insert + debit, start',
      p50Ms: m('beforeStart'),
      how: 'client send -> WorkflowExecutionStarted event',
    },
    {
      part: '  of which API-key auth',
      p50Ms: round(micro.authMs),
      how: 'same middleware on a bare app in the bench process, same database: requireApiKey vs no middleware',
      additive: false,
    },
    {
      part: '  of which rate limiter',
      p50Ms: round(micro.limiterMs),
      how: 'same: partA(generate) chain vs requireApiKey alone',
      additive: false,
    },
    ...(micro.admit ?? []).map((a) => ({
      part: `    limiter statement: ${a.part}`,
      p50Ms: round(a.ms, 2),
      how: 'rate_limit_admit_slots through admit() on the bare app, one part added at a time (difference of medians)',
      additive: false,
    })),
    ...(micro.idempotencyClaimMs !== undefined
      ? [
          {
            part: '  of which Idempotency-Key claim (only when the header is sent)',
            p50Ms: round(micro.idempotencyClaimMs),
            how: 'claimIdempotencyKey called from the bench process, same database',
            additive: false,
          },
        ]
      : []),
    ...(micro.garmentMs !== undefined
      ? [
          {
            part: '  of which garment lookup',
            p50Ms: round(micro.garmentMs),
            how: 'getGarment called from the bench process, same database',
            additive: false,
          },
        ]
      : []),
    ...(micro.designCheckMs !== undefined
      ? [
          {
            part: '  of which design check (the uploaded design: deleted? its inks for low_contrast; issue 35)',
            p50Ms: round(micro.designCheckMs),
            how: "uploadsByKeys (checkDesigns' query) called from the bench process, same database",
            additive: false,
          },
        ]
      : []),
    ...(micro.insertChargeMs !== undefined
      ? [
          {
            part: '  of which row insert + debit (one statement)',
            p50Ms: round(micro.insertChargeMs),
            how: 'insertAndChargeGenerations called from the bench process (probe rows failed and refunded after)',
            additive: false,
          },
        ]
      : []),
    {
      part: '  of which workflow start RPC round trip (overlaps the first workflow task)',
      p50Ms: round(micro.startRpcMs),
      how: 'client.workflow.start from the bench process, N=10',
      additive: false,
    },
    {
      part: 'workflow tasks: waiting for the worker',
      p50Ms: m('workflowTaskWait'),
      how: `history: WorkflowTaskScheduled -> Started, summed over ${m('workflowTasks')} workflow task(s)`,
    },
    {
      part: `workflow tasks: worker${localNames ? ` incl. local activities (${localNames})` : ''}, completion recorded by the server${renderLocal ? ' (the steps below are its parts)' : ''}`,
      p50Ms: m('workflowTaskRun'),
      how: 'history: WorkflowTaskStarted -> Completed, summed',
      additive: !renderLocal,
    },
    ...(renderLocal
      ? [
          {
            part: 'workflow code + begin (charge check, mark processing, read job; 1 query, in the same local activity as the render since one-step-render) until the render starts',
            p50Ms: m('toRenderStart'),
            how: 'task start -> render end (log line) minus the render laps',
          },
          ...renderRows,
          {
            part: 'answer: the notice from the finishing statement wakes the API, row read, JSON, HTTP',
            p50Ms: m('answerFromRender'),
            how: 'render end -> client has the body',
          },
          {
            part: 'off the client path: rest of the workflow task (SDK, workflow code, completion RPC, server)',
            p50Ms: m('workflowTaskOther'),
            how: 'render end (log line) -> WorkflowTaskCompleted',
            additive: false,
          },
          {
            part: 'off the client path: the workflow closes this long after the client has its answer',
            p50Ms: m('afterAnswer'),
            how: 'client has the body -> WorkflowExecutionCompleted',
            additive: false,
          },
        ]
      : [
          ...(m('activities') > 0
            ? [
                {
                  part: `activity scheduling (queue wait, ${m('activities')} activit${m('activities') === 1 ? 'y' : 'ies'})`,
                  p50Ms: m('activityWait'),
                  how: 'history: ActivityTaskScheduled -> Started, summed',
                },
              ]
            : []),
          ...(otherNames
            ? [
                {
                  part: `other activities (${otherNames})`,
                  p50Ms: m('otherActivitiesRun'),
                  how: 'history: Started -> Completed, summed',
                },
              ]
            : []),
          ...renderRows,
          {
            part: 'answer: result wake-up, row read, JSON, HTTP',
            p50Ms: m('answer'),
            how: 'WorkflowExecutionCompleted -> client has the body',
          },
        ]),
    { part: 'between the above (event gaps)', p50Ms: unaccounted, how: 'total minus the additive parts' },
  ];
  return {
    rows,
    totalP50Ms: m('total'),
    samples: per.length,
    perSample: per.map((p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, round(v)]))),
  };
}
