import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../lib/cursor';
import { badRequest } from './errors';

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

/** The `pagination` field of every cursor-paginated answer (what CursorPage's pagination is). */
export const pagination = z.object({
  hasMore: z.boolean(),
  nextCursor: z.string().nullable().meta({ description: 'pass as cursor for the next page; null on the last' }),
});

/** A page of a keyset listing and what its answer's `pagination` says. */
export interface CursorPage<Row> {
  page: Row[];
  pagination: { hasMore: boolean; nextCursor: string | null };
}

/**
 * How a listing's position is written into its cursor and read back: `read` answers undefined for a value that names
 * no position (the cursor is then refused with `invalid`).
 */
export interface CursorCodec<Row, Pos> {
  read: (value: Record<string, unknown>) => Pos | undefined;
  of: (row: Row) => Record<string, unknown>;
}

/** Newest first by creation time, then id: `{c: createdAt ISO, i: id}`. */
export const createdAtAndId: CursorCodec<{ createdAt: Date; id: string }, { c: string; i: string }> = {
  read: (v) =>
    typeof v.c === 'string' && typeof v.i === 'string' && !Number.isNaN(Date.parse(v.c))
      ? { c: v.c, i: v.i }
      : undefined,
  of: (row) => ({ c: row.createdAt.toISOString(), i: row.id }),
};

const INVALID_CURSOR = 'Invalid cursor: pass nextCursor from the previous page unchanged';

/**
 * One page of a cursor-paginated listing: the cursor (signed for the listing's `scope`, lib/cursor.ts) is checked and
 * read, `load` is asked for `limit + 1` rows after that position, and the extra row tells whether there is a next
 * page, whose cursor names the page's last row. A cursor that is malformed, forged, from another scope or names no
 * position is a 400: "Invalid cursor: pass nextCursor from the previous page unchanged" and `invalidHint` after it.
 */
export async function cursorPage<Row, Pos>(
  listing: { secret: string; scope: string; codec: CursorCodec<Row, Pos>; invalidHint?: string },
  q: { cursor?: string | undefined; limit: number },
  load: (after: Pos | undefined, limit: number) => Promise<Row[]>,
): Promise<CursorPage<Row>> {
  const { secret, scope, codec } = listing;
  let after: Pos | undefined;
  if (q.cursor !== undefined) {
    const value = decodeCursor(q.cursor, secret, scope);
    after = value ? codec.read(value) : undefined;
    if (after === undefined) throw badRequest(`${INVALID_CURSOR}${listing.invalidHint ?? ''}`);
  }
  const rows = await load(after, q.limit + 1);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    page,
    pagination: { hasMore, nextCursor: hasMore && last ? encodeCursor(codec.of(last), secret, scope) : null },
  };
}
