// A page of the caller's templates of one mode, newest first, presented (GET /templates and the MCP tool
// list_templates); the cursor is bound to the mode.
import type { z } from 'zod';
import { listTemplates } from '../../db/templates';
import type { AppDeps } from '../context';
import type { templateListQuery } from '../http/template-schemas';
import { createdAtAndId, cursorPage, DEFAULT_PAGE_LIMIT } from '../pagination';
import { presentTemplate } from './templates';

export async function templatePage(
  deps: AppDeps,
  caller: { userId: string; livemode: boolean },
  q: z.infer<typeof templateListQuery>,
) {
  const { page, pagination } = await cursorPage(
    { secret: deps.config.appSecret, scope: caller.livemode ? 'templates' : 'templates:test', codec: createdAtAndId },
    { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE_LIMIT },
    (after, limit) => listTemplates(deps.sql, caller.userId, { after, limit, livemode: caller.livemode }),
  );
  return { templates: page.map((t) => presentTemplate(deps, t)), pagination };
}
