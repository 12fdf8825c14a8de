// GET /metrics decides "loopback" from the socket's remote address (issue 33): with TRUST_PROXY trusting every hop, a
// client that writes `X-Forwarded-For: 127.0.0.1` is still not a loopback caller, and a request a proxy on this
// machine passes on (it carries a forwarding header) is not either. The token still opens it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startStack, type Stack } from '../helpers/stack';

describe('/metrics: loopback is the socket, never a proxy header', function () {
  this.timeout(60_000);
  let stack: Stack;
  const token = randomBytes(16).toString('hex');
  before(async () => {
    stack = await startStack('metrics-loopback', { env: { TRUST_PROXY: 'true', METRICS_TOKEN: token } });
  });
  after(async () => stack?.stop());

  const scrape = (headers: Record<string, string> = {}) => fetch(`${stack.baseUrl}/metrics`, { headers });

  it('a direct loopback caller is answered', async () => {
    assert.equal((await scrape()).status, 200);
  });

  it('a forwarded request is refused, whatever address the header claims', async () => {
    const forwarded: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-forwarded-for': '203.0.113.7, 127.0.0.1' },
      { forwarded: 'for=127.0.0.1' },
      { 'x-real-ip': '127.0.0.1' },
    ];
    for (const headers of forwarded) {
      const res = await scrape(headers);
      assert.equal(res.status, 404, JSON.stringify(headers));
    }
  });

  it('the token opens it for a forwarded request', async () => {
    const res = await scrape({ 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${token}` });
    assert.equal(res.status, 200);
  });
});
