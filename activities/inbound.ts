// The inbound sweep: starts the workflow of every stored event that is still waiting for one. An event's answer never
// waits for Temporal (lib/inbound.ts); this is what makes that safe.
import type { Client } from '@temporalio/client';
import type { Sql } from '../db/client';
import { waitingStripeEvents } from '../db/payments';
import { waitingWebhooks } from '../db/shopify-webhooks';
import type { AccountDeletionWorkflow } from '../lib/accounts/types';
import { startInboundWorkflow, type InboundWorkflowStart } from '../lib/inbound';
import type { SendMailWorkflow } from '../lib/mail/types';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import { stripeEventStart } from '../lib/payments/start';
import type { StripeEventWorkflow } from '../lib/payments/types';
import { shopifyWebhookStart } from '../lib/storefront/start';
import type { ShopifyWebhookWorkflow } from '../lib/storefront/types';

/** The inbound workflows, by reference (the worker hands them in: activities do not import workflows/). */
export interface InboundWorkflows {
  stripeEvent: StripeEventWorkflow;
  shopifyWebhook: ShopifyWebhookWorkflow;
  sendMail: SendMailWorkflow;
  accountDeletion: AccountDeletionWorkflow;
}

export interface InboundDeps {
  sql: Sql;
  log: Logger;
  config: Config;
  temporal?: Client;
  /** needed only by the sweep (startWaitingInboundEvents), with `temporal` */
  inboundWorkflows?: InboundWorkflows;
}

/** Events per kind per sweep; a larger backlog is worked off by the next sweeps (one a minute). */
const SWEEP_PAGE = 500;

export interface InboundSweepResult {
  started: number;
  alreadyRunning: number;
}

export function createInboundActivities({ sql, log, config, temporal, inboundWorkflows }: InboundDeps) {
  // Events younger than this are left to the API that stored them (INBOUND_SWEEP_GRACE_SECONDS).
  const grace = config.inboundSweepGraceSeconds;
  /** Lists of waiting events, one per kind of inbound event; each gives the workflow start of its events. */
  const sources = (w: InboundWorkflows): { kind: string; waiting: () => Promise<InboundWorkflowStart[]> }[] => [
    {
      kind: 'shopify-webhook',
      waiting: async () =>
        (await waitingWebhooks(sql, grace, SWEEP_PAGE)).map((e) =>
          shopifyWebhookStart(w.shopifyWebhook, e.id, e.userId),
        ),
    },
    {
      kind: 'stripe-event',
      waiting: async () =>
        (await waitingStripeEvents(sql, grace, SWEEP_PAGE)).map((e) => stripeEventStart(w.stripeEvent, e.id, e.userId)),
    },
  ];

  return {
    async startWaitingInboundEvents(): Promise<InboundSweepResult> {
      if (!temporal || !inboundWorkflows)
        throw new Error('the inbound sweep needs a Temporal client and the workflows');
      const out: InboundSweepResult = { started: 0, alreadyRunning: 0 };
      for (const source of sources(inboundWorkflows)) {
        for (const start of await source.waiting()) {
          const r = await startInboundWorkflow(temporal, config.temporal.taskQueue, start);
          if (r === 'started') {
            out.started++;
            log.warn('started the workflow of a waiting inbound event', {
              kind: source.kind,
              workflowId: start.workflowId,
            });
          } else out.alreadyRunning++;
        }
      }
      return out;
    },
  };
}
