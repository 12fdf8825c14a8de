import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { purgeExpiredSessions, grantFreeAllowances, recoverOrphanedGenerations } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  // the allowance grant heartbeats after each page of accounts and resumes from the last one on a retry
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/** Hourly housekeeping, started by the `maintenance-sweep` schedule. */
export async function maintenanceSweep(): Promise<{
  sessionsPurged: number;
  allowancesGranted: number;
  generationsRecovered: number;
}> {
  const [sessionsPurged, allowancesGranted, generationsRecovered] = await Promise.all([
    purgeExpiredSessions(),
    grantFreeAllowances(),
    recoverOrphanedGenerations(),
  ]);
  return { sessionsPurged, allowancesGranted, generationsRecovered };
}
