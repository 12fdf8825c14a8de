import { deprecatePatch, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const {
  purgeExpiredSessions,
  purgeExpiredIdempotencyKeys,
  grantFreeAllowances,
  recoverOrphanedGenerations,
  eraseExpiredShopifyWebhookData,
  purgeRequestLog,
  purgeUsedAccountTokens,
} = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  // the allowance grant heartbeats after each page of accounts and resumes from the last one on a retry
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

// The storage sweep deletes files a page of uploads at a time (a backlog can take a while), heartbeating after each
// page; a retry resumes from the last one.
const { sweepStorage } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/** Hourly housekeeping, started by the `maintenance-sweep` schedule. */
export async function maintenanceSweep(): Promise<{
  sessionsPurged: number;
  allowancesGranted: number;
  generationsRecovered: number;
  idempotencyKeysPurged: number;
  storage: { levelsExpired: number; bytesReleased: number; usageCorrected: number };
  shopifyWebhookData: { bodies: number; exports: number };
  requestLogPurged: number;
  accountTokensPurged: number;
}> {
  // Steps added after sweeps were first recorded went behind patched(); the paths without them are gone (issue 34):
  // a sweep takes minutes (at worst its 10 attempts of the storage step, about 5 hours), so none recorded before a
  // patch can still be running. Each patch is deprecated where it was checked, so runs that recorded its marker still
  // replay.
  deprecatePatch('purge-idempotency-keys');
  deprecatePatch('storage-sweep');
  const [sessionsPurged, allowancesGranted, generationsRecovered, idempotencyKeysPurged, storage] = await Promise.all([
    purgeExpiredSessions(),
    grantFreeAllowances(),
    recoverOrphanedGenerations(),
    purgeExpiredIdempotencyKeys(),
    sweepStorage(),
  ]);
  deprecatePatch('shopify-webhook-retention');
  const shopifyWebhookData = await eraseExpiredShopifyWebhookData();
  deprecatePatch('purge-request-log');
  const requestLogPurged = await purgeRequestLog();
  deprecatePatch('purge-account-tokens');
  const accountTokensPurged = await purgeUsedAccountTokens();
  return {
    sessionsPurged,
    allowancesGranted,
    generationsRecovered,
    idempotencyKeysPurged,
    storage,
    shopifyWebhookData,
    requestLogPurged,
    accountTokensPurged,
  };
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

const { recoverStuckChatJobs } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // one heartbeat per page of jobs
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Every minute, started by the `chat-jobs-sweep` schedule: fails each chat job still running CHAT_ORPHAN_AFTER after
 * it was created whose chatDesign workflow has closed or was never started, refunding its debit (docs/chat.md). A
 * client polling GET /api/chat/jobs/<id> then gets the failed answer instead of 202 for ever.
 */
export async function chatJobsSweep(): Promise<{ failed: number; refunded: number }> {
  return recoverStuckChatJobs();
}
