// releaseNow (lib/images/worker-pool.ts, issue 34: the API's resident peak): pixel buffers nothing reads again are
// freed at once, sharp's own (external memory) included; a view over part of a shared buffer is never touched.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { releaseNow } from '../../lib/images';

const detached = (v: ArrayBufferView) => (v.buffer as ArrayBuffer & { detached: boolean }).detached;

describe('releaseNow: frees pixel buffers now', () => {
  it('detaches whole-buffer views, sharp’s external buffers included, and skips absent or detached ones', async () => {
    const own = new Uint8Array(1 << 20);
    const fromSharp = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#336699' } })
      .raw()
      .toBuffer();
    releaseNow(own, fromSharp, undefined);
    assert.ok(detached(own) && detached(fromSharp));
    assert.equal(own.byteLength, 0);
    releaseNow(own); // twice: nothing to do
  });

  it('leaves a view over part of a shared buffer (and that buffer) alone', () => {
    const whole = new Uint8Array(4096).fill(7);
    const part = whole.subarray(16, 32);
    releaseNow(part);
    assert.ok(!detached(whole));
    assert.equal(whole[20], 7);
  });
});
