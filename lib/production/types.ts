// The production flow's contract (workflows import this: plain data only): workflow production-<order id>, started
// by a paid order's webhook for orders with items of published products (docs/production.md).

export interface ProductionWorkflowInput {
  orderId: string;
  accountId: string;
}

export interface ProductionWorkflowResult {
  status: 'ready' | 'failed';
  /** line items printed */
  files?: number;
  error?: string;
}

/** The workflow id of an order's production. */
export const productionWorkflowId = (orderId: string) => `production-${orderId}`;

/** Errors no retry can fix: the order is gone, a line cannot be printed (no physical size, unreadable design). */
export const ProductionErrors = {
  NotFound: 'ProductionNotFound',
  Unprintable: 'ProductionUnprintable',
} as const;

export const NON_RETRYABLE_PRODUCTION_ERRORS: string[] = Object.values(ProductionErrors);
