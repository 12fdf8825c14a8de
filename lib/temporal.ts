import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Logger } from './log';
import { SEARCH_ATTRIBUTES } from './search-attributes';

const TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
};

/** How long registering waits for new search attributes to become usable before it warns and goes on. */
export const SEARCH_ATTRIBUTES_READY_TIMEOUT_MS = 30_000;

/**
 * Registers our custom search attributes on servers that do not have them yet (the dev server gets them by flag),
 * and returns once they can be used: the servers see them when their namespace caches refresh (every 2 s by default;
 * our dev server does not force a refresh on every read, scripts/stand-ins/temporal.ts), and a workflow started
 * with one before that is refused. A query naming them fails until then.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string, log: Logger): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, TYPES[type]!])),
  });
  const names = missing.map(([n]) => n);
  const query = names.map((n) => `${n} = "probe"`).join(' and ');
  const until = Date.now() + SEARCH_ATTRIBUTES_READY_TIMEOUT_MS;
  for (;;) {
    try {
      await connection.workflowService.countWorkflowExecutions({ namespace, query });
      break;
    } catch (err) {
      if (Date.now() > until) {
        log.warn('registered search attributes are not usable yet', { names, error: (err as Error).message });
        return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  log.info('registered search attributes', { names });
}
