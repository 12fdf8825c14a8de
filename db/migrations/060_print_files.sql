-- Print files (issue 36): the print-ready PNG of a generation or a design-chat mockup for one garment size, made
-- once and kept: its storage key (and the white underbase's on a dark garment), its size in pixels and inches and
-- its preflight report. `source` names what it was made from ('gen:<generation id>' or 'chat:<job id>:<mockup
-- index>'); one file per source and garment size, so a retried or concurrent make keeps the first.
create table print_files (
  id            text primary key,
  user_id       text not null references users(id) on delete cascade,
  source        text not null,
  generation_id text references generations(id) on delete cascade,
  chat_job_id   text references render_jobs(id) on delete cascade,
  size          text not null,
  color         text not null,
  garment_hex   text,
  zone          text not null,
  storage_key   text not null,
  underbase_key text,
  width_px      integer not null,
  height_px     integer not null,
  dpi           integer not null,
  width_in      numeric(7, 3) not null,
  height_in     numeric(7, 3) not null,
  design_box    jsonb not null,
  preflight     jsonb not null,
  created_at    timestamptz not null default now(),
  unique (source, size),
  check ((generation_id is null) <> (chat_job_id is null))
);
create index print_files_user_idx on print_files (user_id, created_at desc);
