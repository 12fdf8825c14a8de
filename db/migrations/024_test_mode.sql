-- Test mode (docs/test-mode.md): a key is `live` or `test`; a generation made with a test key (or a dashboard session
-- in test mode) is `livemode = false`: it spends no token, its mockup carries a TEST watermark, and only test
-- credentials list or read it. Existing keys and generations are live.
alter table api_keys add column mode text not null default 'live' check (mode in ('live', 'test'));
alter table generations add column livemode boolean not null default true;

-- Listing an account's generations of one mode, newest first; also counts the test generations of the last day.
create index generations_user_mode_created_idx on generations (user_id, livemode, created_at desc, id desc);
