// Test mode on the Part A routes (docs/test-mode.md). A key carries its mode (`<prefix>_test_…`); the dashboard's
// session calls choose theirs per request with the `X-Mockup-Mode` header.
import type { Request } from 'express';
import { z } from 'zod';
import type { KeyMode } from '../../db/api-keys';
import { badRequest, fromZod } from '../errors';

export type { KeyMode };
export const KEY_MODES = ['live', 'test'] as const satisfies readonly KeyMode[];

export const MODE_HEADER = 'X-Mockup-Mode';

export const modeHeader = z.enum(KEY_MODES, { message: 'must be live or test' }).meta({
  description:
    'Session (dashboard) calls only: `test` reads and creates test-mode data, `live` (the default) live data. ' +
    "With an API key the key's mode applies, and a header naming the other mode is 400.",
});

/** The mode a request's X-Mockup-Mode header asks for, undefined when absent; 400 when it is neither live nor test. */
export function sessionMode(req: Request): KeyMode | undefined {
  const raw = req.get(MODE_HEADER);
  if (raw === undefined) return undefined;
  const r = modeHeader.safeParse(raw);
  if (!r.success) {
    const err = fromZod(r.error, `${MODE_HEADER} header`);
    throw badRequest(err.message, { ...err.details, header: MODE_HEADER });
  }
  return r.data;
}

/** The request's mode after authentication: live unless a test key or a test-mode session call. */
export const isLive = (req: Request): boolean => req.livemode !== false;
