// Response shapes of the Part B payment and design-chat routes (api/routes/payments.ts, api/routes/chat.ts).
import { z } from 'zod';
import { pagination } from '../pagination';
import { timestamp } from './schemas';

const url = z.url();

// ------------------------------------------------------------------ payments

export const plansList = z
  .object({
    plans: z.array(
      z.object({
        id: z.enum(['free', 'pro', 'business', 'enterprise']),
        name: z.string(),
        tokensPerMonth: z.number().int().nullable().meta({ description: 'null: custom (Enterprise)' }),
        priceUsd: z.number().nullable(),
        priceId: z
          .string()
          .nullable()
          .meta({ description: 'the Stripe price to check out; null for Free and Enterprise' }),
        rollover: z.boolean().meta({ description: 'false: plan tokens expire at the end of their period' }),
      }),
    ),
    tokenPacks: z.array(z.object({ priceId: z.string(), tokens: z.number().int(), priceUsd: z.number() })),
  })
  .meta({ id: 'Plans' });
export const checkoutStarted = z
  .object({ url: url.meta({ description: 'the hosted checkout page' }), sessionId: z.string() })
  .meta({ id: 'CheckoutSession' });
export const portalStarted = z.object({ url }).meta({ id: 'PortalSession' });
export const subscriptionAnswer = z
  .object({
    subscription: z
      .object({
        id: z.string().meta({ description: 'the Stripe subscription id' }),
        plan: z.object({ id: z.string(), name: z.string() }),
        status: z.string().meta({ description: "Stripe's status: active, trialing, past_due, canceled, ..." }),
        currentPeriodStart: timestamp.nullable(),
        currentPeriodEnd: timestamp.nullable(),
        cancelAtPeriodEnd: z.boolean(),
      })
      .nullable(),
  })
  .meta({ id: 'SubscriptionState' });
export const stripeAck = z.object({ received: z.literal(true) }).meta({ id: 'StripeEventAck' });

// ------------------------------------------------------------------ design chat

export const chatAnswer = z
  .object({
    threadId: z.string(),
    messageId: z.string().meta({ description: 'the assistant message' }),
    mockups: z.array(url).meta({ description: 'two mockups when garmentUrls were given, else none' }),
    graphicUrl: url.nullable().meta({ description: 'the clean design without garment (spec: string or null)' }),
    printAssetUrl: url
      .nullable()
      .meta({ description: 'PNG, 300 DPI, at least 2048 px (4096 for nano-banana-pro-4k); spec: string or null' }),
    tokensSpent: z.number().int(),
    tokensRemaining: z.number().int(),
  })
  .meta({ id: 'ChatResult' });
export const chatRunning = z.object({ jobId: z.string(), status: z.literal('running') }).meta({ id: 'ChatJobRunning' });
export const chatThreadPage = z
  .object({
    threads: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        messageCount: z.number().int(),
        createdAt: timestamp,
        updatedAt: timestamp,
      }),
    ),
    pagination,
  })
  .meta({ id: 'ChatThreads' });
export const chatThread = z
  .object({
    id: z.string(),
    title: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    messages: z.array(
      z.looseObject({
        id: z.string(),
        role: z.enum(['user', 'assistant']),
        jobId: z.string().nullable(),
        model: z.string().nullable(),
        tokens: z.number().int(),
        createdAt: timestamp,
        content: z.string().nullable(),
        images: z.array(z.looseObject({ kind: z.string(), url })),
      }),
    ),
  })
  .meta({ id: 'ChatThread' });
