-- Idempotency-Key on POST /api/v1/generate, /generate/batch and /upload (issue 11, finding 16). One row per
-- (account, key): the request's fingerprint (sha256 of method, path and body), the lock of the request running
-- with the key, what that request created before it answered (its recovery point), and the answer once there is
-- one. A logged table: losing rows in a crash would let a retry charge twice.
create table idempotency_keys (
  account_id   text not null references users(id) on delete cascade,
  key          text not null,
  fingerprint  bytea not null,
  created_at   timestamptz not null default now(),
  -- created_at + IDEMPOTENCY_KEY_TTL (24 h): afterwards the key is free and the row is purged
  expires_at   timestamptz not null,
  -- set while a request runs with the key; a lock past locked_until was left by a dead API process
  lock_token   uuid,
  locked_until timestamptz,
  -- written in the transaction that charged: {"generationIds": [...], "batchId": ...}
  recovery     jsonb,
  -- the stored answer (2xx only)
  status       smallint,
  headers      jsonb,
  body         bytea,
  primary key (account_id, key)
);
create index idempotency_keys_expires_idx on idempotency_keys (expires_at);
