-- Mockup generations (spec "Generation"). One row per accepted generation; the workflow with the same id moves
-- it through pending -> processing -> completed | failed.
create table generations (
  id                text primary key,
  user_id           text not null references users(id) on delete cascade,
  api_key_id        text,
  garment_id        text not null references garments(id),
  color             text not null,
  zone              text not null check (zone in ('front', 'back', 'left-chest', 'right-chest')),
  placement         jsonb not null,
  apply_texture     boolean not null,
  design_url        text not null,
  garment_image_url text not null,
  blank_key         text not null,
  webhook_url       text,
  status            text not null default 'pending' check (status in ('pending', 'processing', 'completed', 'failed')),
  error             text,
  mockup_key        text,
  thumbnail_key     text,
  tokens_used       integer not null default 1,
  created_at        timestamptz not null default now(),
  started_at        timestamptz,
  completed_at      timestamptz
);
create index generations_user_created_idx on generations (user_id, created_at desc, id desc);
