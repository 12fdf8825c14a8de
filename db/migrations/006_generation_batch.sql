-- Generations made by POST /generate/batch run inside the batch's workflow (batch-<first generation id>), not in a
-- workflow of their own: the orphan sweep looks for that workflow instead.
alter table generations add column batch_id text;
