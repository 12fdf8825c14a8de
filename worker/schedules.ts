import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Logger } from '../lib/log';
import { chatJobsSweep, inboundEventsSweep, accountsSweep, maintenanceSweep } from '../workflows';

/** The worker's schedules: created once; a second worker (or a restart) finds them already there. */
const SCHEDULES = [
  // Housekeeping: expired sessions, Free allowances, orphaned generations, unused prepared levels.
  { id: 'maintenance-sweep', every: '1 hour', workflowType: maintenanceSweep },
  // Stored inbound events (Shopify webhooks, Stripe events) whose workflow was never started.
  { id: 'inbound-events-sweep', every: '1 minute', workflowType: inboundEventsSweep },
  // Chat jobs whose workflow closed without finishing them or never started: failed and refunded. Every minute, as a
  // client polling GET /api/chat/jobs/<id> is waiting on them.
  { id: 'chat-jobs-sweep', every: '1 minute', workflowType: chatJobsSweep },
  // Outbox mails and account deletions whose workflow was never started (the process that wrote them died first).
  { id: 'accounts-sweep', every: '1 minute', workflowType: accountsSweep },
] as const;

export async function ensureSchedules(client: Client, taskQueue: string, log: Logger): Promise<void> {
  for (const s of SCHEDULES) {
    try {
      await client.schedule.create({
        scheduleId: s.id,
        spec: { intervals: [{ every: s.every }] },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: s.every },
        action: { type: 'startWorkflow', workflowType: s.workflowType, workflowId: s.id, taskQueue, args: [] },
      });
      log.info(`created schedule ${s.id}`);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
}
