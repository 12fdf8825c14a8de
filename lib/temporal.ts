import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Logger } from './log';
import { SEARCH_ATTRIBUTES } from './search-attributes';

const TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
};

/** Registers our custom search attributes on servers that do not have them yet (the dev server gets them by flag). */
export async function ensureSearchAttributes(connection: Connection, namespace: string, log: Logger): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, TYPES[type]!])),
  });
  log.info('registered search attributes', { names: missing.map(([n]) => n) });
}
