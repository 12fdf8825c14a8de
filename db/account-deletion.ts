// Deleting an account (docs/accounts.md#deletion): the request locks the account out at once; the workflow
// account-deletion-<user> then cancels its subscription, disconnects its stores, deletes its files and erases its
// personal data. Ledger and payment rows stay for accounting, tied to the anonymised account row. Every step can run
// again with the same result.
import type { Sql, Tx } from './client';
import { ERASED_PAYLOAD } from './deleted-account-events';

/** The email an erased account keeps: unique, not an address anyone can receive mail at. */
export const anonymisedEmail = (userId: string) => `deleted-${userId}@invalid`;

/**
 * The account can no longer be used: marked deleted, its email anonymised (it is free for a new signup), its
 * password unusable, its sessions ended, its keys revoked. False when it was already being deleted.
 */
export async function beginAccountDeletion(sql: Sql, userId: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    const res = await tx`
      update users set deleted_at = now(), email = ${anonymisedEmail(userId)}, password_hash = '!deleted',
                       email_verified_at = null
      where id = ${userId} and deleted_at is null`;
    if (res.count === 0) return false;
    await tx`delete from sessions where user_id = ${userId}`;
    await tx`update api_keys set revoked_at = now() where user_id = ${userId} and revoked_at is null`;
    await tx`update account_tokens set used_at = now() where user_id = ${userId} and used_at is null`;
    return true;
  }) as Promise<boolean>;
}

/** Accounts whose deletion was asked for over `graceSeconds` ago and is not finished (the sweep starts them). */
export async function unfinishedDeletions(sql: Tx, graceSeconds: number, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from users where deleted_at is not null and erased_at is null
      and deleted_at < now() - make_interval(secs => ${graceSeconds})
    order by deleted_at limit ${limit}`;
  return rows.map((r) => r.id);
}

/** Stripe subscriptions of the account that may still charge it. */
export async function liveSubscriptionsOf(sql: Tx, userId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select stripe_subscription_id as id from subscriptions
    where user_id = ${userId} and status not in ('canceled', 'incomplete_expired')`;
  return rows.map((r) => r.id);
}

/** The account's store connections not yet disconnected. */
export async function liveConnectionsOf(sql: Tx, userId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from shopify_connections where user_id = ${userId} and status <> 'disconnected'`;
  return rows.map((r) => r.id);
}

/**
 * A page of the storage keys of the account's files, in order: uploads (`upload`: with prepared levels beside them)
 * and their thumbnails, mockups, chat images and the references a chat job stored, print files and their
 * underbases, production job sheets and archives, bulk archives, templates' sources, previews, thumbnails and
 * prepared manifests (`manifest`: the buffers it names go with it).
 */
export async function accountFileKeys(
  sql: Tx,
  userId: string,
  opts: { after: string | null; limit: number },
): Promise<{ key: string; upload: boolean; manifest: boolean }[]> {
  return sql<{ key: string; upload: boolean; manifest: boolean }[]>`
    select key, bool_or(upload) as upload, bool_or(manifest) as manifest from (
      select storage_key as key, true as upload, false as manifest from uploads where user_id = ${userId}
      union all select thumbnail_key, false, false from uploads where user_id = ${userId}
      union all select mockup_key, false, false from generations where user_id = ${userId} and mockup_key is not null
      union all select thumbnail_key, false, false from generations where user_id = ${userId} and thumbnail_key is not null
      union all select a.storage_key, false, false from render_assets a join render_jobs j on j.id = a.job_id
        where j.user_id = ${userId}
      -- a chat job's reference images (lib/chat/plan.ts chatKeys.reference): one per image and design URL, and the
      -- thread's previous graphic (one more index; a key never written deletes nothing)
      union all select 'chat/' || j.id || '/ref-' || i || '.png', false, false from render_jobs j,
        generate_series(0, (case jsonb_typeof(j.request->'images') when 'array' then jsonb_array_length(j.request->'images') else 0 end)
          + (case jsonb_typeof(j.request->'designUrls') when 'array' then jsonb_array_length(j.request->'designUrls') else 0 end)) i
        where j.user_id = ${userId}
      union all select archive_key, false, false from bulk_jobs where user_id = ${userId} and archive_key is not null
      union all select storage_key, false, false from print_files where user_id = ${userId}
      union all select underbase_key, false, false from print_files where user_id = ${userId} and underbase_key is not null
      union all select job_sheet_key, false, false from production_jobs where user_id = ${userId} and job_sheet_key is not null
      union all select archive_key, false, false from production_jobs where user_id = ${userId} and archive_key is not null
      union all select source_key, false, false from templates where user_id = ${userId}
      union all select preview_key, false, false from templates where user_id = ${userId} and preview_key is not null
      union all select thumbnail_key, false, false from templates where user_id = ${userId} and thumbnail_key is not null
      union all select prepared_key, false, true from templates where user_id = ${userId} and prepared_key is not null
    ) k
    where ${opts.after}::text is null or key > ${opts.after}
    group by key order by key limit ${opts.limit}`;
}

/** Whether the account's deletion was asked for (or it does not exist). */
export async function accountDeleted(sql: Tx, userId: string): Promise<boolean> {
  const [row] = await sql<{ deleted: boolean }[]>`
    select coalesce((select deleted_at is not null from users where id = ${userId}), true) as deleted`;
  return row!.deleted;
}

/**
 * Erases what the account holds, in one transaction: its keys, uploads, generations, chat, print files, production
 * jobs, templates, webhook settings and deliveries, stores, orders, one-time links, mails, request log, idempotency answers and its Stripe events' payloads. The account row stays anonymised, with its ledger, purchases
 * and subscriptions (accounting). Returns the rows deleted per table.
 */
export async function eraseAccountData(sql: Sql, userId: string): Promise<Record<string, number>> {
  return sql.begin(async (tx) => {
    const out: Record<string, number> = {};
    const del = async (table: string, q: Promise<{ count: number }>) => {
      out[table] = (await q).count;
    };
    await del('sessions', tx`delete from sessions where user_id = ${userId}`);
    await del('account_tokens', tx`delete from account_tokens where user_id = ${userId}`);
    await del('mail_outbox', tx`delete from mail_outbox where user_id = ${userId}`);
    await del('published_products', tx`delete from published_products where user_id = ${userId}`);
    await del('shopify_orders', tx`delete from shopify_orders where user_id = ${userId}`);
    await del('shopify_oauth_states', tx`delete from shopify_oauth_states where user_id = ${userId}`);
    await del('shopify_connections', tx`delete from shopify_connections where user_id = ${userId}`);
    await del('webhook_deliveries', tx`delete from webhook_deliveries where user_id = ${userId}`);
    // bulk renders and their items (their archives are erased from storage with the account's other files)
    await del('bulk_jobs', tx`delete from bulk_jobs where user_id = ${userId}`);
    await del('webhook_signing_secrets', tx`delete from webhook_signing_secrets where user_id = ${userId}`);
    await del('chat_messages', tx`delete from chat_messages where user_id = ${userId}`);
    await del('render_jobs', tx`delete from render_jobs where user_id = ${userId}`);
    await del('chat_threads', tx`delete from chat_threads where user_id = ${userId}`);
    await del('production_jobs', tx`delete from production_jobs where user_id = ${userId}`);
    await del('print_files', tx`delete from print_files where user_id = ${userId}`);
    await del('templates', tx`delete from templates where user_id = ${userId}`);
    await del('generations', tx`delete from generations where user_id = ${userId}`);
    await del('uploads', tx`delete from uploads where user_id = ${userId}`);
    await del('storage_usage', tx`delete from storage_usage where user_id = ${userId}`);
    await del('api_keys', tx`delete from api_keys where user_id = ${userId}`);
    await del('api_request_log', tx`delete from api_request_log where user_id = ${userId}`);
    await del('idempotency_keys', tx`delete from idempotency_keys where account_id = ${userId}`);
    // the Stripe events of the account keep their recorded result (accounting) but not their payload (the
    // customer's name, email and address): events applied for it, of its customers, of its checkout sessions
    await del(
      'stripe_event_payloads',
      tx`update stripe_events set payload = ${ERASED_PAYLOAD(tx)}
         where status <> 'received' and payload->>'erased' is null and (
           result->>'userId' = ${userId}
           or payload #>> '{data,object,customer}' in (select customer_id from stripe_customers where user_id = ${userId})
           or payload #>> '{data,object,id}' in (select id from checkout_sessions where user_id = ${userId}))`,
    );
    await tx`update users set erased_at = now() where id = ${userId} and erased_at is null`;
    return out;
  }) as Promise<Record<string, number>>;
}

/** Checkout sessions of the account that may still be open at Stripe (a session lives at most 24 hours). */
export async function openCheckoutSessionsOf(sql: Tx, userId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from checkout_sessions
    where user_id = ${userId} and created_at > now() - interval '25 hours' and payment_intent is null`;
  return rows.map((r) => r.id);
}

/** The account's Stripe customers. */
export async function stripeCustomersOf(sql: Tx, userId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`select customer_id as id from stripe_customers where user_id = ${userId}`;
  return rows.map((r) => r.id);
}
