-- Generation warnings (the team's shared field; issue 35 defines it, issue 38 adds codes): what the service noticed
-- about a generation without refusing it, e.g. {code: "low_contrast", message, details}. Always present, [] when
-- none (docs/generation.md#warnings).
alter table generations add column warnings jsonb not null default '[]'::jsonb;
