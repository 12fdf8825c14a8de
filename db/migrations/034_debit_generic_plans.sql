-- The debit's statements keep one plan per connection from their first call on (issue 34). A plpgsql function's
-- statements are planned again for each of their first five executions in a connection (PostgreSQL's custom plans,
-- plan_cache_mode = auto) before a generic plan may be kept; the pool's connections go round in turn and close after
-- 30 s idle, so most calls of generations_record_and_charge on a connection that has run it a few times only are in
-- that phase, and 032/033 have about twice 030's statements to plan (ledger_debit's six, the generations insert, the
-- inlined ledger_spendable, the call of ledger_mail_if_low). That planning was the bench's "row insert + debit called
-- alone" going from 1.3 to 2.2-3.2 ms (docs/benchmarks.md). The plans do not depend on the values: the JSON arrays
-- are estimated at 100 rows whatever they hold, and the account id is an equality on an indexed column, so the
-- generic plan is the plan. Nested calls (ledger_debit, ledger_spendable, ledger_mail_if_low under
-- generations_record_and_charge) run under the caller's setting; ledger_debit has its own for db/ledger.ts's direct
-- calls. A CREATE OR REPLACE of either function must repeat the SET clause (test/integration/ledger-scale.test.ts
-- checks it is there).
alter function ledger_debit(text, jsonb) set plan_cache_mode = force_generic_plan;
alter function generations_record_and_charge(text, jsonb, integer, text, text, text, integer, jsonb, jsonb)
  set plan_cache_mode = force_generic_plan;
