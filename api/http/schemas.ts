// Request pieces shared by several routes (generate, batch, preview): URLs, placement, the Prefer header.
import { z } from 'zod';

export const httpUrl = (field: string) =>
  z
    .string({ message: `${field} must be a string URL` })
    .trim()
    .min(1, 'is required')
    .max(2048, 'must be at most 2048 characters')
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }));

const range = (min: number, max: number, def: number) =>
  z
    .number({ message: `must be a number from ${min} to ${max}` })
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`)
    .default(def);

export const placementSchema = z.strictObject({
  x: range(0, 100, 50),
  y: range(0, 100, 35),
  scale: range(0.1, 1, 0.8),
  rotation: range(-180, 180, 0),
});

/** `Prefer: respond-async` (RFC 7240), possibly among other preferences. */
export const prefersAsync = (header: string | undefined) =>
  !!header && header.split(',').some((p) => p.trim().split(/[;=]/)[0]!.trim().toLowerCase() === 'respond-async');
