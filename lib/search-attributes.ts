// Custom search attributes that let an operator filter workflows in the Temporal UI, e.g. AccountId = "usr_…".
export const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  GarmentId: 'Keyword',
} as const;
