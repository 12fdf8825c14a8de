-- Account safety, second pass (issue 33, docs/security.md#account-takeover): a password reset or change cancels the
-- account's outstanding one-time links; the old address gets a "This wasn't me" link (7 days) that undoes a change of
-- email and locks the account until its password is reset.

-- When a link was cancelled by a password reset or change (or by "This wasn't me"): it answers "This link is no
-- longer valid". Cancelled links also have used_at set, so every check of an unused link stays as it was.
alter table account_tokens add column cancelled_at timestamptz;
alter table account_tokens drop constraint account_tokens_purpose_check;
alter table account_tokens add constraint account_tokens_purpose_check
  check (purpose in ('verify_email', 'reset_password', 'change_email', 'undo_email_change'));

-- Set by "This wasn't me": the password is taken as known to someone else; signing in is refused until a reset.
alter table users add column password_reset_required boolean not null default false;

-- The maintenance sweep deletes used links by when they were used (purgeAccountTokens).
create index account_tokens_used_idx on account_tokens (used_at) where used_at is not null;
