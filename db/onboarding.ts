// What a new account has done of the onboarding checklist (issue 39), read from the account's own rows: a completed
// mockup, an API key, a call of the API with a key (the request log), a connected store.
import type { Sql } from './client';

export interface OnboardingFacts {
  mockup: boolean;
  key: boolean;
  apiCall: boolean;
  store: boolean;
}

export async function onboardingFacts(sql: Sql, userId: string): Promise<OnboardingFacts> {
  const [row] = await sql<OnboardingFacts[]>`
    select
      exists (select 1 from generations where user_id = ${userId} and status = 'completed') as mockup,
      exists (select 1 from api_keys where user_id = ${userId}) as key,
      exists (select 1 from api_request_log where user_id = ${userId} and api_key_id is not null) as "apiCall",
      exists (select 1 from shopify_connections where user_id = ${userId} and status = 'active') as store`;
  return row!;
}
