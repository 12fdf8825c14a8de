// A request that fails because PostgreSQL or Temporal cannot be reached for the moment (a restart, a failover) answers
// 503 with Retry-After, not 500: the chaos suite restarts both under load (docs/chaos.md).
import assert from 'node:assert/strict';
import { ApiError, isDependencyUnavailable, toApiError } from '../../api/errors';

const withCode = (code: unknown, message = 'x') => Object.assign(new Error(message), { code });

describe('errors of an unreachable dependency', () => {
  it('recognizes the postgres driver connection errors and PostgreSQL shutdown/startup codes', () => {
    for (const code of [
      'ECONNREFUSED',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECT_TIMEOUT',
      '57P01',
      '57P03',
      '08006',
    ])
      assert.equal(isDependencyUnavailable(withCode(code)), true, code);
  });

  it('recognizes a Temporal call that failed with gRPC UNAVAILABLE, also as the cause of a wrapper', () => {
    assert.equal(isDependencyUnavailable(withCode(14)), true);
    const wrapped = Object.assign(new Error('Failed to start Workflow'), { cause: withCode(14, '14 UNAVAILABLE') });
    assert.equal(isDependencyUnavailable(wrapped), true);
  });

  it('leaves other errors alone: SQL errors, other gRPC codes, plain errors', () => {
    for (const e of [withCode('23505'), withCode('42P01'), withCode(3), withCode(5), new Error('boom'), null, 'text'])
      assert.equal(isDependencyUnavailable(e), false, String((e as { code?: unknown })?.code ?? e));
  });

  it('answers 503 service_unavailable with Retry-After for them, 500 for anything else unknown', () => {
    const unavailable = toApiError(withCode('ECONNREFUSED'));
    assert.ok(unavailable instanceof ApiError);
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.code, 'service_unavailable');
    assert.equal(unavailable.headers?.['Retry-After'], '1');
    assert.equal(toApiError(new Error('boom')).status, 500);
    assert.equal(toApiError(withCode('23505')).status, 500);
  });
});
