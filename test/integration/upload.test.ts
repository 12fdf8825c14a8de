import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { decodeLevel, decodePrepared, MAX_INPUT_PIXELS, preparedKey } from '../../lib/images';
import { pngVariant } from '../../bench/lib';
import { uploadRow } from '../helpers/db-inspect';
import * as F from '../helpers/fixtures';
import { account, http } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

const sha = (b: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(b as ArrayBuffer))
    .digest('hex');

describe('design upload (POST /api/v1/upload)', () => {
  let stack: Stack;
  let key: string;
  let userId: string;
  before(async () => {
    stack = await startStack('upload', { worker: false });
    ({ key, userId } = await account(stack.baseUrl));
  });
  after(async () => stack?.stop());

  function multipart(bytes: Buffer, opts: { filename?: string; type?: string; field?: string; k?: string } = {}) {
    const form = new FormData();
    form.append(
      opts.field ?? 'file',
      new Blob([new Uint8Array(bytes)], { type: opts.type ?? 'application/octet-stream' }),
      opts.filename ?? 'design.bin',
    );
    return http(stack.baseUrl, 'POST', '/api/v1/upload', { key: opts.k ?? key, body: form });
  }
  const json = (body: unknown) => http(stack.baseUrl, 'POST', '/api/v1/upload', { key, json: body });

  function assertInvalid(res: { status: number; body: any; text: string }, message: RegExp) {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request', res.text);
    assert.match(res.body.error.message, message);
  }

  it('stores a multipart PNG and answers exactly the upload resource (201)', async () => {
    const png = await F.crispLogo();
    const res = await multipart(png, { filename: 'logo.png', type: 'image/png' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['dimensions', 'fileSize', 'id', 'mimeType', 'thumbnailUrl', 'url']);
    assert.match(res.body.id, /^upl_\d+_[a-z0-9]+$/);
    assert.deepEqual(res.body.dimensions, { width: 2400, height: 3000 });
    assert.equal(res.body.fileSize, png.length);
    assert.equal(res.body.mimeType, 'image/png');
    assert.ok(res.body.url.startsWith(`${stack.baseUrl}/files/`));
    assert.ok(res.body.thumbnailUrl.startsWith(`${stack.baseUrl}/files/`));
    assert.notEqual(res.body.url, res.body.thumbnailUrl);
  });

  it('serves the original bytes unchanged, with the detected Content-Type and long cache headers, and a small thumbnail', async () => {
    const png = await F.crispLogo();
    const up = await multipart(png, { filename: 'logo.png', type: 'image/png' });
    const file = await fetch(up.body.url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    assert.match(file.headers.get('cache-control') ?? '', /max-age=31536000/);
    assert.equal(sha(await file.arrayBuffer()), sha(png));

    const thumb = await fetch(up.body.thumbnailUrl);
    assert.equal(thumb.status, 200);
    assert.equal(thumb.headers.get('content-type'), 'image/webp');
    const tb = Buffer.from(await thumb.arrayBuffer());
    const meta = await sharp(tb).metadata();
    assert.ok(Math.max(meta.width!, meta.height!) <= 400, `thumbnail ${meta.width}x${meta.height}`);
    assert.equal(meta.width! / meta.height!, 2400 / 3000);
    assert.ok(tb.length < 40_000, `thumbnail is ${tb.length} bytes`);
  });

  it('keeps the design levels prepared for compositing beside the upload, identical to decoding it, and does not serve it', async () => {
    const png = pngVariant(await F.crispLogo(), 'levels'); // same pixels as the first test's upload, other bytes
    const res = await multipart(png, { filename: 'logo.png', type: 'image/png' });
    assert.equal(res.status, 201, res.text);
    const key = decodeURIComponent(new URL(res.body.url).pathname.replace(/^\/files\//, ''));
    const stored = await stack.storage.get(preparedKey(key));
    assert.ok(stored, 'prepared level stored');
    const prepared = decodePrepared(stored.body)!;
    assert.ok(prepared, 'prepared levels readable');
    assert.deepEqual(prepared.src, { width: 2400, height: 3000 });
    assert.deepEqual([...prepared.levels.keys()], [1, 2]);
    for (const [k, level] of prepared.levels) {
      const decoded = await decodeLevel(png, prepared.src, k, { limitInputPixels: MAX_INPUT_PIXELS });
      assert.ok(decoded.data.equals(level.data), `the API prepared level ${k} as the worker would decode it`);
    }
    const served = await fetch(`${stack.baseUrl}/files/${preparedKey(key)}`);
    assert.equal(served.status, 404);
  });

  it('records the upload for the account that made it', async () => {
    const png = await F.lowRes();
    const up = await multipart(png, { filename: 'a.png' });
    const row = await uploadRow(up.body.id);
    assert.ok(row, 'upload row');
    assert.equal(row.userId, userId);
    assert.equal(row.mimeType, 'image/png');
    assert.equal(row.sizeBytes, png.length);
    assert.deepEqual([row.width, row.height], [300, 375]);
    assert.equal(row.sha256.toString('hex'), sha(png));
    assert.ok(up.body.url.endsWith(row.storageKey));
    assert.ok(await stack.storage.exists(row.thumbnailKey));
  });

  it('accepts JSON imageData as a data URL and as bare base64, in every allowed format', async () => {
    const logo = await F.crispLogo(600, 750);
    for (const format of ['png', 'jpeg', 'webp', 'gif'] as const) {
      const bytes = await F.asFormat(logo, format);
      const mime = `image/${format}`;
      const viaDataUrl = await json({ imageData: F.toDataUrl(bytes, mime) });
      assert.equal(viaDataUrl.status, 201, `${format}: ${viaDataUrl.text}`);
      assert.equal(viaDataUrl.body.mimeType, mime);
      assert.equal(viaDataUrl.body.fileSize, bytes.length);
      assert.deepEqual(viaDataUrl.body.dimensions, { width: 600, height: 750 });
      // the same bytes again: the same upload (200), whichever form carried them
      const bare = await json({ imageData: bytes.toString('base64') });
      assert.equal(bare.status, 200, `${format} bare: ${bare.text}`);
      assert.deepEqual(bare.body, viaDataUrl.body);
      assert.equal(bare.body.mimeType, mime);
      const served = await fetch(bare.body.url);
      assert.equal(served.headers.get('content-type'), mime);
      assert.equal(sha(await served.arrayBuffer()), sha(bytes));
    }
  });

  it('detects the format from the bytes, ignoring the declared type and file name', async () => {
    const jpeg = await F.jpegLogoOnWhite(400, 500);
    const res = await multipart(jpeg, { filename: 'logo.png', type: 'image/png' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.mimeType, 'image/jpeg');
    assert.match(res.body.url, /\.jpg$/);
    assert.equal((await fetch(res.body.url)).headers.get('content-type'), 'image/jpeg');

    const gif = await F.asFormat(await F.lowRes(), 'gif');
    const viaJson = await json({ imageData: F.toDataUrl(gif, 'image/png') });
    assert.equal(viaJson.status, 201, viaJson.text);
    assert.equal(viaJson.body.mimeType, 'image/gif');
  });

  it('refuses SVG, whatever it is called, naming the problem', async () => {
    assertInvalid(await multipart(F.SVG, { filename: 'logo.png', type: 'image/png' }), /SVG images are not accepted/);
    assertInvalid(await json({ imageData: F.toDataUrl(F.SVG, 'image/svg+xml') }), /SVG images are not accepted/);
  });

  it('refuses other formats with a message naming what was sent', async () => {
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n');
    assertInvalid(
      await multipart(pdf, { filename: 'x.png', type: 'image/png' }),
      /Unsupported image format \(PDF\).*PNG, JPEG, WebP or GIF/,
    );
    const bmp = Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]);
    assertInvalid(await multipart(bmp), /Unsupported image format \(BMP\)/);
    assertInvalid(
      await json({ imageData: Buffer.from('just some text, not an image').toString('base64') }),
      /Unsupported image format/,
    );
  });

  it('refuses a file over 10 MB with 400 invalid_request', async () => {
    const big = await F.oversizedPng();
    assert.ok(big.length > 10 * 1024 * 1024, `fixture is ${big.length} bytes`);
    assertInvalid(await multipart(big, { filename: 'big.png', type: 'image/png' }), /larger than 10 MB/);
  });

  it('refuses an oversized multipart body while it streams, without a Content-Length', async () => {
    // A chunked body: no declared length, so only the streaming limit can stop it.
    const boundary = 'x-boundary-x';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= 14) {
          controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
          controller.close();
          return;
        }
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${stack.baseUrl}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(res.status, 400);
    const body: any = await res.json();
    assert.equal(body.error.code, 'invalid_request');
    assert.match(body.error.message, /larger than 10 MB/);
  });

  it('refuses JSON imageData over 10 MB, both a too-large body and a payload that decodes to more than 10 MB', async () => {
    const big = await F.oversizedPng();
    assertInvalid(await json({ imageData: F.toDataUrl(big) }), /larger than 10 MB/);
    // Just under the JSON body limit, but decodes to 10.2 MB.
    const justOver = Buffer.alloc(Math.floor(10.2 * 1024 * 1024), 1);
    justOver.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assertInvalid(await json({ imageData: justOver.toString('base64') }), /larger than 10 MB/);
  });

  it('answers a JSON body too large or complex to parse with 413 in the envelope, on upload and analyze, and keeps serving', async () => {
    // 12 MB of empty objects (under the 13.4 MB JSON limit): parsing it needs more heap than the parser may use.
    const n = 4_000_000;
    const objects = Buffer.alloc(n * 3 + 1);
    objects.write('[{}', 0);
    for (let i = 1; i < n; i++) objects.write(',{}', i * 3);
    objects.write(']', n * 3);
    const bodies = [
      Buffer.concat([Buffer.from('{"imageData":"x","pad":'), objects, Buffer.from('}')]),
      // a plain array of numbers that parses, but is far more than any valid body holds besides the image
      Buffer.from(`{"imageData":"x","pad":[${'0,'.repeat(3_000_000)}0]}`),
    ];
    for (const body of bodies) {
      for (const path of ['/api/v1/upload', '/api/v1/analyze']) {
        const res = await http(stack.baseUrl, 'POST', path, {
          key,
          body,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 413, `${path}: ${res.text}`);
        assert.equal(res.body.error.code, 'payload_too_large');
        assert.match(res.body.error.message, /only the image may be large/);
      }
    }
    const ok = await json({ imageData: F.toDataUrl(await F.crispLogo(240, 300)) });
    assert.equal(ok.status, 201, ok.text);
  });

  it('says when no file was provided', async () => {
    const form = new FormData();
    form.append('note', 'no file here');
    assertInvalid(await http(stack.baseUrl, 'POST', '/api/v1/upload', { key, body: form }), /No file provided/);
    assertInvalid(await http(stack.baseUrl, 'POST', '/api/v1/upload', { key }), /No file provided/);
    assertInvalid(await json({}), /imageData: is required/);
    assertInvalid(await json({ imageData: '' }), /imageData/);
    assertInvalid(await multipart(await F.lowRes(), { field: 'image' }), /form part named "file"/);
  });

  it('refuses truncated and corrupt images', async () => {
    assertInvalid(await multipart(await F.truncatedPng(0.5), { filename: 'cut.png' }), /truncated or corrupt/);
    assertInvalid(await multipart(await F.corruptJpeg(), { filename: 'bad.jpg' }), /truncated or corrupt/);
    assertInvalid(await multipart(F.pngMagicGarbage(), { filename: 'garbage.png' }), /cannot be read/);
    assertInvalid(
      await multipart(Buffer.from([0x89, 0x50, 0x4e]), { filename: 'tiny.png' }),
      /Unsupported image format|cannot be read/,
    );
  });

  it('refuses a decompression bomb from its header, quickly, and keeps serving', async () => {
    const bomb = await F.decompressionBomb(30000);
    assert.ok(bomb.length < 1024 * 1024, `bomb is ${bomb.length} bytes`);
    const t0 = Date.now();
    const res = await multipart(bomb, { filename: 'bomb.png', type: 'image/png' });
    assertInvalid(res, /30000x30000 pixels/);
    assert.equal(res.body.error.details.reason, 'too_many_pixels');
    assert.ok(Date.now() - t0 < 5000, 'refused without decoding');
    assertInvalid(await json({ imageData: F.gifHeaderBomb().toString('base64') }), /65535x65535 pixels/);
    const after = await multipart(await F.crispLogo(310, 380), { filename: 'ok.png' });
    assert.equal(after.status, 201, after.text);
  });

  it('refuses invalid base64 and malformed data URLs', async () => {
    assertInvalid(await json({ imageData: 'data:image/png;base64,***not base64***' }), /not valid base64/);
    assertInvalid(await json({ imageData: 'data:image/png,rawtext' }), /base64/);
    assertInvalid(await json({ imageData: 42 }), /imageData/);
    assertInvalid(await json({ imageData: 'aGVsbG8=', extra: true }), /extra|Unrecognized/i);
  });

  it('refuses a malformed multipart body with 400', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key,
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nPNG-without-end',
    });
    assertInvalid(res, /multipart/i);
  });

  it('needs an API key', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/upload', { json: { imageData: 'aGVsbG8=' } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
  });
});
