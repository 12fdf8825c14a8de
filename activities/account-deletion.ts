// The steps of account-deletion-<user>. Each one can run again with the same result: a cancelled subscription,
// a disconnected store, a deleted file, erased rows stay so.
import { heartbeat, activityInfo } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { InboundWorkflows } from './inbound';
import type { Sql } from '../db/client';
import {
  accountFileKeys,
  eraseAccountData,
  liveConnectionsOf,
  liveSubscriptionsOf,
  openCheckoutSessionsOf,
  stripeCustomersOf,
  unfinishedDeletions,
} from '../db/account-deletion';
import { disconnectForUser, forgetWebhookSubscriptions, webhookSubscriptionsOf } from '../db/storefront';
import { startInboundWorkflow } from '../lib/inbound';
import { preparedKey } from '../lib/images/design-levels';
import { preparedKeys } from '../lib/template-import/prepared-store';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import { createStripeGateway } from '../lib/payments/gateway';
import { gatewayFor, userErrorMessage } from '../lib/shopify/client';
import {
  SUBSCRIPTION_GONE,
  WEBHOOK_SUBSCRIPTION_DELETE,
  type WebhookSubscriptionDeleteData,
} from '../lib/shopify/operations';
import type { Storage } from '../lib/storage';
import { decryptToken } from '../lib/token-cipher';
import { accountDeletionStart, type AccountDeletionInput } from '../lib/accounts/types';

export interface AccountDeletionDeps {
  /** The workflows these activities start, by reference (the worker hands them in). */
  inboundWorkflows?: InboundWorkflows;
  sql: Sql;
  config: Config;
  storage: Storage;
  log: Logger;
  temporal?: Client;
}

/** Files deleted per heartbeat. */
const FILE_PAGE = 200;

export function createAccountDeletionActivities({
  sql,
  config,
  storage,
  log,
  temporal,
  inboundWorkflows,
}: AccountDeletionDeps) {
  const stripe = createStripeGateway(config.payments);
  return {
    /** Cancels every subscription of the account at Stripe (at once, not at the period's end). */
    async cancelAccountSubscriptions(input: AccountDeletionInput): Promise<{ cancelled: number }> {
      const ids = await liveSubscriptionsOf(sql, input.userId);
      if (ids.length === 0) return { cancelled: 0 };
      let cancelled = 0;
      for (const id of ids) {
        try {
          await stripe.cancelSubscription(id, { idempotencyKey: `account-deletion-${input.userId}-${id}` });
          cancelled++;
        } catch (err) {
          // one Stripe no longer has, or already cancelled, charges nothing
          const e = err as { statusCode?: number; code?: string };
          if (e.statusCode !== 404 && e.code !== 'resource_missing') throw err;
        }
      }
      return { cancelled };
    },

    /**
     * Expires the account's checkout sessions that may still be open, so none can be paid after the deletion started
     * (one already completed or expired is left as it is).
     */
    async expireAccountCheckouts(input: AccountDeletionInput): Promise<{ expired: number }> {
      const ids = await openCheckoutSessionsOf(sql, input.userId);
      if (ids.length === 0) return { expired: 0 };
      let expired = 0;
      for (const id of ids) {
        try {
          await stripe.expireCheckoutSession(id, { idempotencyKey: `account-deletion-expire-${id}` });
          expired++;
        } catch (err) {
          // completed, already expired, or unknown at Stripe: nothing left to pay
          const e = err as { statusCode?: number };
          if (e.statusCode !== 400 && e.statusCode !== 404) throw err;
        }
      }
      return { expired };
    },

    /** Deletes the account's Stripe customers (their email, name and address go with them; nothing more is billed). */
    async deleteStripeCustomers(input: AccountDeletionInput): Promise<{ deleted: number }> {
      const ids = await stripeCustomersOf(sql, input.userId);
      if (ids.length === 0) return { deleted: 0 };
      let deleted = 0;
      for (const id of ids) {
        try {
          await stripe.deleteCustomer(id);
          deleted++;
        } catch (err) {
          const e = err as { statusCode?: number; code?: string };
          if (e.statusCode !== 404 && e.code !== 'resource_missing') throw err;
        }
      }
      return { deleted };
    },

    /**
     * Disconnects every store of the account: the access token is erased, then the shop's webhook subscriptions are
     * deleted at Shopify when no other account's connection to the shop is active (as DELETE /connect/<id> does).
     */
    async disconnectAccountStores(input: AccountDeletionInput): Promise<{ disconnected: number; webhooks: number }> {
      let disconnected = 0;
      let webhooks = 0;
      const g = gatewayFor(config);
      for (const id of await liveConnectionsOf(sql, input.userId)) {
        const before = await disconnectForUser(sql, id, input.userId);
        if (!before) continue;
        disconnected++;
        if (before.othersActive || !g || !before.accessTokenEnc || !config.shopify.tokenKey) continue;
        let token: string;
        try {
          token = decryptToken(config.shopify.tokenKey, before.accessTokenEnc);
        } catch {
          continue;
        }
        for (const sub of await webhookSubscriptionsOf(sql, before.shopDomain)) {
          try {
            const r = await g.graphql<WebhookSubscriptionDeleteData>(
              before.shopDomain,
              token,
              WEBHOOK_SUBSCRIPTION_DELETE,
              { id: sub.subscriptionId },
            );
            const errors = userErrorMessage(r.webhookSubscriptionDelete.userErrors);
            if (
              r.webhookSubscriptionDelete.deletedWebhookSubscriptionId ||
              (errors && SUBSCRIPTION_GONE.test(errors))
            ) {
              await forgetWebhookSubscriptions(sql, before.shopDomain, [sub.subscriptionId]);
              webhooks++;
            }
          } catch (err) {
            // the token is erased already: a retry could not ask again; deliveries to a disconnected shop are ignored
            log.warn('account deletion: a shopify webhook subscription was not deleted', {
              connectionId: id,
              error: (err as Error).message,
            });
          }
        }
      }
      return { disconnected, webhooks };
    },

    /** Deletes the account's files from storage, a page at a time; a retry resumes after the last page. */
    async deleteAccountFiles(input: AccountDeletionInput): Promise<{ deleted: number }> {
      const resumed = activityInfo().heartbeatDetails as { after: string | null; deleted: number } | undefined;
      let after = resumed?.after ?? null;
      let deleted = resumed?.deleted ?? 0;
      for (;;) {
        const page = await accountFileKeys(sql, input.userId, { after, limit: FILE_PAGE });
        if (page.length === 0) return { deleted };
        for (const f of page) {
          // a prepared template's buffers first (its manifest names them), then the manifest
          if (f.manifest) for (const k of await preparedKeys(storage, f.key)) if (k !== f.key) await storage.delete(k);
          await storage.delete(f.key);
          if (f.upload) await storage.delete(preparedKey(f.key));
          deleted++;
        }
        after = page[page.length - 1]!.key;
        heartbeat({ after, deleted });
      }
    },

    /** Erases the account's personal data (db/account-deletion.ts says what stays). */
    async eraseAccount(input: AccountDeletionInput): Promise<Record<string, number>> {
      const erased = await eraseAccountData(sql, input.userId);
      log.info('account erased', { userId: input.userId, ...erased });
      return erased;
    },

    /** The sweep: starts the deletion workflow of every account whose deletion is asked for and not finished. */
    async startUnfinishedDeletions(): Promise<{ started: number }> {
      if (!temporal || !inboundWorkflows) throw new Error('the deletion sweep needs a Temporal client');
      let started = 0;
      for (const userId of await unfinishedDeletions(sql, 60, 100))
        if (
          (await startInboundWorkflow(
            temporal,
            config.temporal.taskQueue,
            accountDeletionStart(inboundWorkflows.accountDeletion, userId),
          )) === 'started'
        )
          started++;
      return { started };
    },
  };
}

export type AccountDeletionActivities = ReturnType<typeof createAccountDeletionActivities>;
