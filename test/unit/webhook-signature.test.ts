import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import {
  computeSignature,
  generateSigningSecret,
  parseSignatureHeader,
  signatureHeader,
  verifyWebhookSignature,
} from '../../lib/webhooks/signature';

describe('webhook signatures', () => {
  const secret = 'whsec_' + 'ab'.repeat(32);
  const body =
    '{"event":"generation.completed","timestamp":"2026-01-01T00:00:00.000Z","data":{"id":"gen_1_x","status":"completed","mockupUrl":"https://x/y.jpg","tokensUsed":1}}';
  const t = 1_767_225_600;
  const now = t * 1000;

  it('is HMAC-SHA256 over "<t>.<body>" keyed by the whole secret string, in hex', () => {
    const independent = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${body}`, 'utf8').digest('hex');
    assert.equal(computeSignature(secret, t, body), independent);
    assert.equal(signatureHeader([secret], t, body), `t=${t},v1=${independent}`);
    assert.equal(computeSignature(secret, t, Buffer.from(body)), independent, 'string and raw bytes sign the same');
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const a = generateSigningSecret();
    assert.match(a, /^whsec_[0-9a-f]{64}$/);
    assert.notEqual(a, generateSigningSecret());
  });

  it('verifies a good signature within the tolerance', () => {
    const header = signatureHeader([secret], t, body);
    assert.deepEqual(verifyWebhookSignature({ body, header, secret, now }), { valid: true, timestamp: t });
    assert.equal(verifyWebhookSignature({ body: Buffer.from(body), header, secret, now: now + 299_000 }).valid, true);
  });

  it('rejects a tampered body, a wrong secret, and a tampered timestamp', () => {
    const header = signatureHeader([secret], t, body);
    const mismatch = { valid: false, reason: 'signature_mismatch' };
    assert.deepEqual(
      verifyWebhookSignature({ body: body.replace('"tokensUsed":1', '"tokensUsed":2'), header, secret, now }),
      mismatch,
    );
    assert.deepEqual(
      verifyWebhookSignature({ body: body + ' ', header, secret, now }),
      mismatch,
      'even whitespace counts',
    );
    assert.deepEqual(verifyWebhookSignature({ body, header, secret: generateSigningSecret(), now }), mismatch);
    const shifted = header.replace(`t=${t}`, `t=${t + 1}`);
    assert.deepEqual(verifyWebhookSignature({ body, header: shifted, secret, now }), mismatch);
  });

  it('rejects timestamps outside the tolerance in either direction (replays)', () => {
    const header = signatureHeader([secret], t, body);
    const stale = { valid: false, reason: 'timestamp_out_of_tolerance' };
    assert.deepEqual(verifyWebhookSignature({ body, header, secret, now: now + 301_000 }), stale);
    assert.deepEqual(verifyWebhookSignature({ body, header, secret, now: now - 301_000 }), stale);
    assert.equal(
      verifyWebhookSignature({ body, header, secret, now: now + 3600_000, toleranceSeconds: 7200 }).valid,
      true,
    );
  });

  it('accepts any of several v1 signatures (rotation) and either of several secrets', () => {
    const previous = 'whsec_' + 'cd'.repeat(32);
    const header = signatureHeader([secret, previous], t, body);
    assert.equal(parseSignatureHeader(header)!.signatures.length, 2);
    assert.equal(verifyWebhookSignature({ body, header, secret, now }).valid, true);
    assert.equal(verifyWebhookSignature({ body, header, secret: previous, now }).valid, true);
    const onlyOld = signatureHeader([previous], t, body);
    assert.equal(verifyWebhookSignature({ body, header: onlyOld, secret: [secret, previous], now }).valid, true);
    assert.equal(verifyWebhookSignature({ body, header: onlyOld, secret, now }).valid, false);
  });

  it('rejects missing and malformed headers, ignores unknown schemes', () => {
    const sig = computeSignature(secret, t, body);
    assert.deepEqual(verifyWebhookSignature({ body, header: undefined, secret, now }), {
      valid: false,
      reason: 'missing_header',
    });
    assert.deepEqual(verifyWebhookSignature({ body, header: '', secret, now }), {
      valid: false,
      reason: 'missing_header',
    });
    for (const bad of [
      `v1=${sig}`,
      `t=${t}`,
      `t=abc,v1=${sig}`,
      `t=${t},v1=${sig.slice(2)}`,
      `t=${t},t=${t},v1=${sig}`,
      `t=${t};v1=${sig}`,
      `garbage`,
    ]) {
      assert.deepEqual(
        verifyWebhookSignature({ body, header: bad, secret, now }),
        { valid: false, reason: 'malformed_header' },
        bad,
      );
    }
    assert.equal(verifyWebhookSignature({ body, header: `t=${t},v0=deadbeef,v1=${sig}`, secret, now }).valid, true);
  });
});
