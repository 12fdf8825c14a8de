import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Logger } from '../lib/log';
import { maintenanceSweep } from '../workflows';

/** Creates the hourly maintenance schedule once; a second worker finds it already there. */
export async function ensureMaintenanceSchedule(client: Client, taskQueue: string, log: Logger): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: 'maintenance-sweep',
      spec: { intervals: [{ every: '1 hour' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      action: {
        type: 'startWorkflow',
        workflowType: maintenanceSweep,
        workflowId: 'maintenance-sweep',
        taskQueue,
        args: [],
      },
    });
    log.info('created schedule maintenance-sweep');
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
