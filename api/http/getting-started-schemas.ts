// Response schemas of the getting-started routes (api/routes/samples.ts, api/routes/onboarding.ts; issue 39).
import { z } from 'zod';

export const sampleList = z
  .object({
    samples: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        licence: z.string().meta({ description: "the design's licence: the project's own work" }),
        url: z.string().meta({ description: 'the PNG (transparent background); upload it as a design' }),
        width: z.number().int(),
        height: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'SampleList' });

export const showcase = z
  .object({
    mockups: z.array(
      z.object({
        sampleId: z.string(),
        sampleName: z.string(),
        garmentId: z.string(),
        garmentName: z.string(),
        color: z.string(),
        imageUrl: z.string().meta({ description: 'a JPEG rendered by this service (640 px)' }),
        width: z.number().int(),
        height: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'Showcase' });

export const ONBOARDING_STEPS = ['mockup', 'key', 'api_call', 'store'] as const;

export const onboarding = z
  .object({
    steps: z.array(z.object({ id: z.enum(ONBOARDING_STEPS), done: z.boolean() })),
    done: z.boolean().meta({ description: 'every step is done' }),
  })
  .meta({ id: 'Onboarding' });
export type Onboarding = z.infer<typeof onboarding>;
