import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { purgeExpiredSessions, grantFreeAllowances, recoverOrphanedGenerations } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
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
