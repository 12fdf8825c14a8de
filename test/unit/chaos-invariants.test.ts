// Negative controls for the chaos suite's pure parts: the checks must report a known violation, accept what the
// documented readings allow, and the fault plan must be a function of the seed alone.
import assert from 'node:assert/strict';
import { checkHttp, checkProcesses, type Window } from '../chaos/invariants';
import type { CallRecord } from '../chaos/load';
import { createRng } from '../chaos/rng';
import { planFaults, PROCESS_FAULTS } from '../chaos/schedule';

const T = 1_000_000;
const call = (over: Partial<CallRecord>): CallRecord => ({
  api: 0,
  method: 'POST',
  route: '/api/v1/generate',
  t0: T + 1000,
  t1: T + 1100,
  status: 200,
  ...over,
});

describe('chaos invariants (negative controls)', () => {
  const pgRestart: Window = { what: 'PostgreSQL restart', from: T + 900, to: T + 2000 };
  const apiKilled: Window = { what: 'api killed', api: 1, from: T + 900, to: T + 2000 };

  it('HTTP: a 500 is a violation whenever it happens, even during a restart', () => {
    const r = checkHttp([call({ status: 500 })], [pgRestart], T);
    assert.equal(r.ok, false);
    assert.match(r.violations[0]!, /500 \(during PostgreSQL restart\)/);
  });

  it('HTTP: a 503 with Retry-After is accepted only during a dependency restart', () => {
    assert.equal(checkHttp([call({ status: 503, retryAfter: '1' })], [pgRestart], T).ok, true);
    assert.equal(checkHttp([call({ status: 503, retryAfter: '1' })], [], T).ok, false);
    assert.equal(checkHttp([call({ status: 503 })], [pgRestart], T).ok, false, 'no Retry-After: not a retryable 503');
  });

  it('HTTP: a dropped request is excused only from the API being killed', () => {
    assert.equal(checkHttp([call({ api: 1, status: null, error: 'ECONNRESET' })], [apiKilled], T).ok, true);
    const other = checkHttp([call({ api: 0, status: null, error: 'ECONNRESET' })], [apiKilled], T);
    assert.equal(other.ok, false, 'another API dropping a request while api-2 is killed is a violation');
  });

  it('processes: a crash while running is a violation; a refused start during a restart is not', () => {
    const crash = { name: 'worker-1', at: T + 1500, code: 1, signal: null, afterStart: true };
    const refused = { name: 'api-1', at: T + 1500, code: 1, signal: null, afterStart: false };
    assert.equal(checkProcesses([crash], [pgRestart], T).ok, false);
    assert.equal(checkProcesses([refused], [pgRestart], T).ok, true);
    assert.equal(checkProcesses([refused], [], T).ok, false);
  });

  it('the fault plan depends on the seed alone and has every process fault once per round', () => {
    const opts = { durationMs: 60_000, rounds: 2, apis: 2, workers: 2 };
    const a = planFaults(createRng(42), opts);
    assert.deepEqual(planFaults(createRng(42), opts), a);
    assert.notDeepEqual(planFaults(createRng(43), opts), a);
    for (const kind of PROCESS_FAULTS)
      assert.equal(a.filter((f) => f.kind === kind).length, opts.rounds, `${kind} once per round`);
    assert.equal(a.filter((f) => f.kind === 'receiver-down').length, opts.rounds);
    assert.ok(a.every((f) => f.atMs >= 0 && f.atMs < opts.durationMs));
  });
});
