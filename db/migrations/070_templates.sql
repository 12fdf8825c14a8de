-- Templates (issue 32, docs/templates.md): a customer's own Photoshop mockup imported as a render target. The PSD/PSB
-- stays in storage under source_key; the import workflow (template-import-<id>) parses it, stores what every render
-- needs under prepared_key (+ its buffers beside it), the render of its own content (preview_key, a lossless PNG at
-- full size) and a thumbnail, and records the smart objects found. livemode: like generations, test credentials see
-- only test templates and live ones only live templates.
create table templates (
  id              text primary key,                                    -- tpl_<ms>_<suffix>
  user_id         text not null references users(id) on delete cascade,
  livemode        boolean not null default true,
  name            text not null,
  status          text not null default 'processing' check (status in ('processing', 'ready', 'failed')),
  source_key      text not null,
  source_bytes    bigint not null check (source_bytes > 0),
  format          text not null check (format in ('psd', 'psb')),
  width           integer not null check (width > 0),
  height          integer not null check (height > 0),
  preview_key     text,
  thumbnail_key   text,
  prepared_key    text,
  smart_objects   jsonb not null default '[]',
  fidelity        jsonb,
  unsupported     jsonb not null default '[]',
  error           text,
  created_at      timestamptz not null default now(),
  completed_at    timestamptz
);
-- Listing an account's templates of one mode, newest first (cursor paging on created_at, id).
create index templates_user_mode_created_idx on templates (user_id, livemode, created_at desc, id desc);
