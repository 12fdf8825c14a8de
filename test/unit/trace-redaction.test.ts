// What the tracing SDK and the logger redact (lib/trace-redaction.ts, issue 33).
import assert from 'node:assert/strict';
import { redactAttributes, redactLogLine, redactQuery, redactUrl } from '../../lib/trace-redaction';

describe('trace and log redaction', () => {
  it("drops the whole query of this service's dashboard paths", () => {
    assert.equal(redactUrl('/reset-password?token=abc&x=1'), '/reset-password?REDACTED');
    assert.equal(
      redactUrl('http://127.0.0.1:3000/verify-email?token=abc'),
      'http://127.0.0.1:3000/verify-email?REDACTED',
    );
    assert.equal(redactUrl('/billing'), '/billing');
  });

  it('keeps API queries minus token-, secret- and key-like parameters', () => {
    assert.equal(redactUrl('/api/v1/garments?limit=1&api_key=k'), '/api/v1/garments?limit=1&api_key=REDACTED');
    assert.equal(
      redactQuery('code=c&state=s&hmac=h&shop=a.myshopify.com'),
      'code=REDACTED&state=REDACTED&hmac=REDACTED&shop=a.myshopify.com',
    );
    assert.equal(
      redactUrl('https://s3.test/b/k?X-Amz-Signature=abc&X-Amz-Credential=c&partNumber=1', { ownPaths: false }),
      'https://s3.test/b/k?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&partNumber=1',
    );
  });

  it('rewrites only URL attributes, by span kind', () => {
    assert.deepEqual(redactAttributes({ 'http.target': '/reset-password?token=t', 'http.method': 'GET' }, 'server'), {
      'http.target': '/reset-password?REDACTED',
    });
    assert.deepEqual(redactAttributes({ 'url.path': '/verify-email', 'url.query': 'token=t' }, 'server'), {
      'url.query': 'REDACTED',
    });
    assert.deepEqual(redactAttributes({ 'url.full': 'https://api.test/x?secret=s&a=1' }, 'client'), {
      'url.full': 'https://api.test/x?secret=REDACTED&a=1',
    });
    assert.equal(redactAttributes({ 'http.target': '/api/v1/garments?limit=1' }, 'server'), null);
  });

  it('redacts secret-like parameters in log lines', () => {
    const line = JSON.stringify({ msg: 'fetch failed', url: 'https://x.test/a?token=abc&page=2' });
    assert.equal(
      redactLogLine(line),
      JSON.stringify({ msg: 'fetch failed', url: 'https://x.test/a?token=REDACTED&page=2' }),
    );
    assert.equal(redactLogLine('{"msg":"plain"}'), '{"msg":"plain"}');
  });
});
