-- Accounts a person can keep (docs/accounts.md): verified email, one-time links for verifying, resetting a password
-- and changing the email, the mail outbox, and account deletion.

-- When the address was verified; existing accounts are taken as verified. A Free account created while
-- EMAIL_VERIFICATION=required gets its first allowance when this is set (free_grant_pending).
alter table users add column email_verified_at timestamptz;
update users set email_verified_at = created_at;
alter table users add column free_grant_pending boolean not null default false;
-- Set when the account's deletion was asked for: it can no longer sign in; the account-deletion-<user> workflow
-- erases it and leaves an anonymised row (email deleted-<id>@invalid) for the ledger and payments.
alter table users add column deleted_at timestamptz;
-- Set when that workflow has erased the account's data (the sweep starts the workflow of a deletion not finished).
alter table users add column erased_at timestamptz;
create index users_deleting_idx on users (deleted_at) where deleted_at is not null and erased_at is null;

-- One-time links: only a SHA-256 of the token is stored. `email` is the address the link was sent to (for a change
-- of email, the new address it verifies).
create table account_tokens (
  token_hash  bytea primary key,
  user_id     text not null references users(id) on delete cascade,
  purpose     text not null check (purpose in ('verify_email', 'reset_password', 'change_email')),
  email       text not null,
  created_at  timestamptz not null default now(),
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index account_tokens_user_idx on account_tokens (user_id, purpose);
create index account_tokens_expires_idx on account_tokens (expires_at);

-- The mail outbox: a row is written in the same transaction as the change that causes the mail, and delivered by
-- the workflow mail-<id> (failed_at: it gave up). The body, which may hold a one-time link, is erased once sent.
create table mail_outbox (
  id          bigint generated always as identity primary key,
  user_id     text references users(id) on delete set null,
  kind        text not null,
  to_address  text not null,
  subject     text not null,
  text_body   text,
  html_body   text,
  created_at  timestamptz not null default now(),
  failed_at   timestamptz,
  sent_at     timestamptz,
  message_id  text,
  attempts    integer not null default 0,
  last_error  text
);
create index mail_outbox_unsent_idx on mail_outbox (created_at) where sent_at is null;
create index mail_outbox_user_idx on mail_outbox (user_id);

-- "Tokens running low" is mailed once per allowance period: the period start it was last mailed for.
alter table users add column low_balance_mailed_for timestamptz;
