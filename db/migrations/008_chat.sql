-- Design chat (issue 13): a prompt becomes a graphic, a print-ready file and mockups, as the durable job
-- chatDesign (workflow id = render job id). The API inserts the render job when it starts the workflow (so
-- GET /api/chat/jobs/<id> can answer while it runs); everything else is written by the workflow's last step in one
-- transaction (thread when new, user message, assistant message, render assets, token usage, the job completed), or
-- on failure the job alone, failed, in the transaction that refunds the debit. Every write is keyed by the job id,
-- so a re-run after a worker crash changes nothing.

-- A conversation. Created by the first job that names no threadId; its title comes from that job's prompt.
create table chat_threads (
  id         text primary key,
  user_id    text not null references users(id) on delete cascade,
  title      text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index chat_threads_user_idx on chat_threads (user_id, created_at desc, id desc);

-- One render job per accepted POST /api/chat (debit reference = id). `attempts` lists every provider tried, in order,
-- with its outcome ({provider, ok, tries, type?, error?}); `timings` the milliseconds of each step. A failed job
-- keeps its `error` (internal detail) and `failure` (what the client is told: 402, 400 or 500).
create table render_jobs (
  id                   text primary key,
  user_id              text not null references users(id) on delete cascade,
  thread_id            text references chat_threads(id) on delete cascade,
  model                text not null check (model in ('nano-banana', 'nano-banana-pro', 'nano-banana-pro-4k')),
  prompt               text not null,
  request              jsonb not null,
  status               text not null default 'running' check (status in ('running', 'completed', 'failed')),
  provider             text check (provider in ('gemini', 'openai', 'local')),
  attempts             jsonb not null default '[]',
  timings              jsonb not null default '{}',
  tokens_spent         integer not null default 0,
  tokens_remaining     integer,
  error                text,
  failure              text check (failure in ('insufficient_tokens', 'bad_input', 'generation_failed')),
  user_message_id      text,
  assistant_message_id text,
  created_at           timestamptz not null default now(),
  completed_at         timestamptz
);
create index render_jobs_user_idx on render_jobs (user_id, created_at desc);
create index render_jobs_running_idx on render_jobs (created_at) where status = 'running';

-- Messages of a thread, in `seq` order (both messages of a job are written in one transaction and share now()).
-- user: the prompt and its references ({images, designUrls, garmentUrls}); assistant: the job's output (its images
-- are the render assets of its job).
create table chat_messages (
  seq          bigint generated always as identity,
  id           text primary key,
  thread_id    text not null references chat_threads(id) on delete cascade,
  user_id      text not null references users(id) on delete cascade,
  job_id       text not null references render_jobs(id) on delete cascade,
  role         text not null check (role in ('user', 'assistant')),
  content      text,
  refs         jsonb not null default '{}',
  model        text not null,
  tokens_spent integer not null default 0,
  created_at   timestamptz not null default now(),
  unique (job_id, role)
);
create index chat_messages_thread_idx on chat_messages (thread_id, seq);

-- One row per output image of a job: the graphic, the print asset and each mockup.
create table render_assets (
  id          bigint generated always as identity primary key,
  job_id      text not null references render_jobs(id) on delete cascade,
  message_id  text not null references chat_messages(id) on delete cascade,
  kind        text not null check (kind in ('graphic', 'print', 'mockup')),
  position    integer not null default 0,
  storage_key text not null,
  mime_type   text not null,
  width       integer not null,
  height      integer not null,
  bytes       integer not null,
  dpi         integer,
  garment_url text,
  placement   text,
  created_at  timestamptz not null default now(),
  unique (job_id, kind, position)
);

-- What a completed job cost: one entry per job. The tokens themselves are the ledger debit whose reference is the
-- job id (token_debits); a failed job has no entry and its debit is refunded (grant refund:<job id>).
create table token_usage (
  id         bigint generated always as identity primary key,
  user_id    text not null references users(id) on delete cascade,
  job_id     text not null unique references render_jobs(id) on delete cascade,
  model      text not null,
  tokens     integer not null check (tokens > 0),
  debit_reference text not null,
  created_at timestamptz not null default now()
);
create index token_usage_user_idx on token_usage (user_id, created_at desc);
