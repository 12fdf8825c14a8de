-- Money, second pass (issue 21): only checkout sessions this service created grant tokens, and a pack's tokens are
-- taken back when its payment is refunded or disputed.

-- Every Checkout Session the service created (recorded before its URL is handed out). An event about a session not
-- here is recorded and ignored. What a pack's session granted, the payment it was paid with (its payment_intent, set
-- at grant time), and what refunds and disputes took back.
create table checkout_sessions (
  id               text primary key,
  user_id          text not null references users(id) on delete cascade,
  mode             text not null check (mode in ('payment', 'subscription')),
  price_id         text not null,
  created_at       timestamptz not null default now(),
  payment_intent   text unique,
  -- cents paid (the session's amount_total), the denominator of a refund's share
  amount_total     integer,
  tokens_granted   integer not null default 0,
  -- cumulative cents refunded as last reported (the charge's amount_refunded), and the refunds seen one by one
  -- (refund id -> cents, refund.created / refund.updated); the larger of the two is the refunded amount
  refunded_amount  integer not null default 0,
  refunds          jsonb not null default '{}',
  tokens_refunded  integer not null default 0
);
create index checkout_sessions_user_idx on checkout_sessions (user_id);

-- Disputes of a pack's payment: what was taken back, and how the dispute ended.
create table stripe_disputes (
  id               text primary key,
  session_id       text not null references checkout_sessions(id) on delete cascade,
  status           text not null,
  tokens_taken     integer not null default 0
);

-- A debit says why it was made; one taking tokens back (a refund, a dispute) may owe what the account no longer had:
-- `owed` is repaid first by the next grants, and the account cannot spend while any is owed.
alter table token_debits add column reason text not null default 'spend'
  check (reason in ('spend', 'refund', 'dispute'));
alter table token_debits add column owed integer not null default 0 check (owed >= 0 and owed <= amount);
create index token_debits_owed_idx on token_debits (user_id, id) where owed > 0;

alter table token_grants drop constraint token_grants_source_check;
alter table token_grants add constraint token_grants_source_check
  check (source in ('free', 'plan', 'payg_purchase', 'refund', 'dispute_won'));
