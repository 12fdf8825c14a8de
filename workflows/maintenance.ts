import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const {
  purgeExpiredSessions,
  purgeExpiredIdempotencyKeys,
  grantFreeAllowances,
  recoverOrphanedGenerations,
  eraseExpiredShopifyWebhookData,
} = proxyActivities<Activities>({
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
  idempotencyKeysPurged: number;
  shopifyWebhookData?: { bodies: number; exports: number };
}> {
  // sweeps recorded before the idempotency-key purge existed replay without it
  const purgeKeys = patched('purge-idempotency-keys');
  const [sessionsPurged, allowancesGranted, generationsRecovered, idempotencyKeysPurged] = await Promise.all([
    purgeExpiredSessions(),
    grantFreeAllowances(),
    recoverOrphanedGenerations(),
    purgeKeys ? purgeExpiredIdempotencyKeys() : 0,
  ]);
  const done = { sessionsPurged, allowancesGranted, generationsRecovered, idempotencyKeysPurged };
  // added after sweeps were recorded: runs that started before it replay without the step
  if (!patched('shopify-webhook-retention')) return done;
  const shopifyWebhookData = await eraseExpiredShopifyWebhookData();
  return { ...done, shopifyWebhookData };
}

const { startWaitingInboundEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Every minute, started by the `inbound-events-sweep` schedule: starts the workflow of each stored Shopify webhook or
 * Stripe event still waiting for one 15 s after it was answered (its API died, or Temporal was unreachable then).
 */
export async function inboundEventsSweep(): Promise<{ started: number; alreadyRunning: number }> {
  return startWaitingInboundEvents();
}
