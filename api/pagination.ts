import { z } from 'zod';

/** `limit` query parameter of every cursor-paginated list: a whole number 1-100 written as digits, default 50. */
export const DEFAULT_PAGE_LIMIT = 50;
export const pageLimitParam = z
  .string()
  .regex(/^\d+$/, 'must be a whole number from 1 to 100')
  .transform(Number)
  .pipe(
    z.number().int().min(1, 'must be a whole number from 1 to 100').max(100, 'must be a whole number from 1 to 100'),
  )
  .optional()
  .meta({ description: `page size, 1 to 100 (default ${DEFAULT_PAGE_LIMIT})` });

export const cursorParam = z
  .string()
  .min(1)
  .optional()
  .meta({ description: 'nextCursor of the previous page, unchanged' });
