// The stripeEvent workflow against the real Temporal dev server with mocked activities: its retry policy only. A
// step that keeps failing with a transient error is retried a bounded number of times, then the run fails (the event
// stays `received` and the inbound sweep starts it again later); a malformed event's step runs once.
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/activity';
import { ActivityFailure, WorkflowFailedError } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { randomSuffix } from '../../lib/ids';
import { PaymentErrors, type StripeEventInput } from '../../lib/payments/types';
import { stripeEvent } from '../../workflows';
import { useTemporalConnections, workflowBundle } from '../helpers/stack';

/** The local database step's attempts before the run fails (workflows/payments.ts, documented in docs/payments.md). */
const DB_STEP_ATTEMPTS = 8;

describe('stripeEvent workflow (mocked activities)', function () {
  // A step failing every time waits out its backoff for real: 1 + 2 + 4 + 8 + 16 + 30 + 30 s.
  this.timeout(300_000);
  const temporal = useTemporalConnections();

  async function run(
    applyStripeEvent: Activities['applyStripeEvent'],
    listCheckoutLineItems?: Activities['listCheckoutLineItems'],
    need?: StripeEventInput['need'],
    readAndApplyStripeEvent?: Activities['readAndApplyStripeEvent'],
  ) {
    const taskQueue = `wf-stripe-${randomSuffix(6)}`;
    const failed: string[] = [];
    const worker = await Worker.create({
      connection: temporal.connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: {
        applyStripeEvent,
        ...(listCheckoutLineItems ? { listCheckoutLineItems } : {}),
        ...(readAndApplyStripeEvent ? { readAndApplyStripeEvent } : {}),
        async failStripeEvent({ error }: { eventId: string; error: string }) {
          failed.push(error);
        },
      } satisfies Partial<Activities>,
    });
    const eventId = `evt_test_${randomSuffix(12)}`;
    const outcome = await worker.runUntil(
      temporal.client.workflow
        .execute(stripeEvent, {
          workflowId: `stripe-event-${eventId}`,
          taskQueue,
          args: [need === undefined ? { eventId } : { eventId, need }],
        })
        .then(
          (result) => ({ result, error: undefined }),
          (error: unknown) => ({ result: undefined, error }),
        ),
    );
    const history = await temporal.client.workflow.getHandle(`stripe-event-${eventId}`).fetchHistory();
    return { ...outcome, failed, history };
  }

  /** Stripe refusing to list a session's line items, as the activities report it. */
  const REFUSED = 'Stripe refused to list the items of cs_test_gone';
  const refused = (): never => {
    throw ApplicationFailure.nonRetryable(REFUSED, PaymentErrors.Rejected);
  };

  /** The step's own error: the run's failure, or what it wraps. */
  const cause = (err: unknown) => {
    assert.ok(err instanceof WorkflowFailedError, String(err));
    let c: unknown = err.cause;
    while (c instanceof ActivityFailure) c = c.cause;
    assert.ok(c instanceof ApplicationFailure, String(err.cause));
    return c;
  };

  it('retries a transient database error a bounded number of times, then fails the run', async () => {
    let attempts = 0;
    const { result, error } = await run(async () => {
      attempts++;
      throw new Error('connection refused');
    });
    assert.equal(result, undefined);
    assert.equal(cause(error).message, 'connection refused');
    assert.equal(attempts, DB_STEP_ATTEMPTS);
  });

  it('runs the step of a malformed event once', async () => {
    let attempts = 0;
    const { error } = await run(async () => {
      attempts++;
      throw ApplicationFailure.nonRetryable('malformed invoice.paid event: no lines', PaymentErrors.Malformed);
    });
    assert.equal(cause(error).type, PaymentErrors.Malformed);
    assert.equal(attempts, 1);
  });

  it('applies an event whose step fails transiently a few times', async () => {
    let attempts = 0;
    const { result } = await run(async () => {
      if (++attempts < 3) throw new Error('connection refused');
      return { status: 'processed', type: 'invoice.paid', granted: 500 };
    });
    assert.deepEqual(result, {
      status: 'processed',
      type: 'invoice.paid',
      granted: 500,
    });
    assert.equal(attempts, 3);
  });

  it("reads a paid pack's line items from Stripe, then applies the event with them, in one workflow task", async () => {
    const inputs: unknown[] = [];
    const reads: string[] = [];
    const { result, history } = await run(
      async (input) => {
        inputs.push(input);
        if (!input.lineItems) return { status: 'needs_line_items', sessionId: 'cs_test_1' };
        return {
          status: 'processed',
          type: 'checkout.session.completed',
          granted: 100,
        };
      },
      async ({ sessionId }) => {
        reads.push(sessionId);
        return [{ priceId: 'price_pack_100', quantity: 1 }];
      },
    );
    assert.deepEqual(result, {
      status: 'processed',
      type: 'checkout.session.completed',
      granted: 100,
    });
    assert.deepEqual(reads, ['cs_test_1']);
    assert.equal(inputs.length, 2);
    assert.deepEqual((inputs[1] as { lineItems: unknown }).lineItems, [{ priceId: 'price_pack_100', quantity: 1 }]);
    // apply, read, apply: three local activities (markers) in the first workflow task, no activity task
    const types = history.events!.map((e) => e.eventType);
    const count = (t: number) => types.filter((x) => x === t).length;
    const E = proto.api.enums.v1.EventType;
    assert.equal(count(E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), 0);
    assert.equal(count(E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED), 1);
  });

  it('started knowing what to read (as the API starts it): reads and applies in one local activity', async () => {
    const calls: unknown[] = [];
    const { result, history } = await run(
      async () => assert.fail('no apply without the read'),
      undefined,
      { lineItemsOf: 'cs_test_2' },
      async (input) => {
        calls.push(input);
        return { status: 'processed', type: 'checkout.session.completed', granted: 100 };
      },
    );
    assert.deepEqual(result, { status: 'processed', type: 'checkout.session.completed', granted: 100 });
    assert.equal(calls.length, 1);
    assert.deepEqual((calls[0] as { need: unknown }).need, { lineItemsOf: 'cs_test_2' });
    const localActivities = history.events!.filter(
      (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    assert.equal(localActivities.length, 1);
  });

  it('started knowing what to read: Stripe refusing the read records the event failed, once', async () => {
    let reads = 0;
    const { result, failed } = await run(
      async () => assert.fail('no apply without the read'),
      undefined,
      { lineItemsOf: 'cs_test_gone' },
      async () => {
        reads++;
        return refused();
      },
    );
    assert.equal(reads, 1);
    assert.deepEqual(result, { status: 'failed', error: REFUSED });
    assert.deepEqual(failed, [REFUSED]);
  });

  it('started knowing there is nothing to read: applies once', async () => {
    let applies = 0;
    const { result } = await run(
      async (input) => {
        applies++;
        assert.equal(input.lineItems, undefined);
        return { status: 'ignored', type: 'invoice.payment_failed', granted: 0 };
      },
      undefined,
      null,
    );
    assert.deepEqual(result, { status: 'ignored', type: 'invoice.payment_failed', granted: 0 });
    assert.equal(applies, 1);
  });

  it('records the event failed when Stripe refuses to list the line items', async () => {
    let reads = 0;
    const { result, failed } = await run(
      async () => ({ status: 'needs_line_items', sessionId: 'cs_test_gone' }),
      async () => {
        reads++;
        return refused();
      },
    );
    assert.equal(reads, 1);
    assert.deepEqual(result, {
      status: 'failed',
      error: REFUSED,
    });
    assert.deepEqual(failed, [REFUSED]);
  });
});
