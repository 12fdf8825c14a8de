// GET /api/auth/account/export: everything held about one account, read in one repeatable-read transaction so the
// parts agree with each other. Secrets are left out (password hash, key hashes, store access tokens, webhook secret).
import type { Sql } from './client';
import { outboxSubject } from './mail-outbox';

type Row = Record<string, unknown>;

export async function readAccountExport(sql: Sql, userId: string) {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const [profile] = await tx<Row[]>`
      select id, email, plan, created_at as "createdAt", email_verified_at as "emailVerifiedAt" from users
      where id = ${userId}`;
    const apiKeys = await tx<Row[]>`
      select id, name, last_four as "lastFour", created_at as "createdAt", expires_at as "expiresAt",
             last_used_at as "lastUsedAt", revoked_at as "revokedAt"
      from api_keys where user_id = ${userId} order by created_at`;
    const uploads = await tx<Row[]>`
      select id, storage_key as "storageKey", thumbnail_key as "thumbnailKey", mime_type as "mimeType",
             size_bytes as "sizeBytes", width, height, created_at as "createdAt"
      from uploads where user_id = ${userId} order by created_at`;
    const generations = await tx<Row[]>`
      select id, garment_id as "garmentId", color, zone, placement, status, error, design_url as "designUrl",
             mockup_key as "mockupKey", thumbnail_key as "thumbnailKey", tokens_used as "tokensUsed",
             webhook_url as "webhookUrl", created_at as "createdAt", completed_at as "completedAt"
      from generations where user_id = ${userId} order by created_at`;
    const chatThreads = await tx<Row[]>`
      select t.id, t.title, t.created_at as "createdAt",
             coalesce((select json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content,
                                                         'createdAt', m.created_at) order by m.seq)
                       from chat_messages m where m.thread_id = t.id), '[]') as messages,
             coalesce((select json_agg(json_build_object('jobId', a.job_id, 'kind', a.kind,
                                                         'storageKey', a.storage_key) order by a.id)
                       from render_assets a join render_jobs j on j.id = a.job_id where j.thread_id = t.id),
                      '[]') as images
      from chat_threads t where t.user_id = ${userId} order by t.created_at`;
    const grants = await tx<Row[]>`
      select source, amount, expires_at as "expiresAt", reference, created_at as "createdAt"
      from token_grants where user_id = ${userId} order by id`;
    const debits = await tx<Row[]>`
      select amount, reason, reference, owed, created_at as "createdAt"
      from token_debits where user_id = ${userId} order by id`;
    const subscriptions = await tx<Row[]>`
      select plan_id as "planId", status, current_period_start as "currentPeriodStart",
             current_period_end as "currentPeriodEnd", cancel_at_period_end as "cancelAtPeriodEnd"
      from subscriptions where user_id = ${userId}`;
    const purchases = await tx<Row[]>`
      select id, mode, price_id as "priceId", amount_total as "amountTotal", tokens_granted as "tokensGranted",
             tokens_refunded as "tokensRefunded", created_at as "createdAt"
      from checkout_sessions where user_id = ${userId} order by created_at`;
    const storeConnections = await tx<Row[]>`
      select id, shop_domain as "shopDomain", status, created_at as "createdAt"
      from shopify_connections where user_id = ${userId} order by created_at`;
    const orders = await tx<Row[]>`
      select id, shop_domain as "shopDomain", name, customer_name as "customerName",
             customer_email as "customerEmail", line_items as "lineItems", total, currency, status, tracking,
             created_at as "createdAt"
      from shopify_orders where user_id = ${userId} order by created_at`;
    const mails = (
      await tx<(Parameters<typeof outboxSubject>[0] & Row)[]>`
        select kind, to_address as "to", subject, message, created_at as "createdAt", sent_at as "sentAt"
        from mail_outbox where user_id = ${userId} order by id`
    ).map(({ message, ...m }) => ({ ...m, subject: outboxSubject({ subject: m.subject, message }) }));
    return {
      profile: profile ?? {},
      apiKeys,
      uploads,
      generations,
      chatThreads,
      ledger: { grants, debits },
      subscriptions,
      purchases,
      storeConnections,
      orders,
      mails,
    };
  });
}
