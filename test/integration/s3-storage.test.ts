// S3 storage through the AWS SDK against a real S3 server (MinIO, started by scripts/test.ts), and the whole
// upload -> generate -> serve path of the API with STORAGE_DRIVER=s3.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { fabricMapKeys } from '../../lib/compositing';
import { loadConfig } from '../../lib/config';
import { randomSuffix } from '../../lib/ids';
import { createStorage, LocalDiskStorage, S3Storage } from '../../lib/storage';
import { S3_PART_SIZE } from '../../lib/storage/s3';
import { account, http } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

const endpoint = () => {
  const e = process.env.TEST_S3_ENDPOINT;
  if (!e) throw new Error('TEST_S3_ENDPOINT is not set: run the tests with `npm test` (it starts MinIO)');
  return e;
};
const creds = () => ({
  accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID!,
  secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY!,
});

describe('S3 storage (AWS SDK) on a real S3 server', function () {
  this.timeout(60_000);
  const bucket = `unit-${randomSuffix(8)}`;
  const storage = (over: Partial<ConstructorParameters<typeof S3Storage>[0]> = {}) =>
    new S3Storage({ bucket, region: 'us-east-1', endpoint: endpoint(), forcePathStyle: true, ...creds(), ...over });

  it('creates the bucket when missing, once', async () => {
    const s3 = storage();
    assert.equal(await s3.ensureBucket(), true);
    assert.equal(await s3.ensureBucket(), false);
  });

  it('puts, gets, checks and deletes objects; content type from the key as on local disk', async () => {
    const s3 = storage();
    const body = Buffer.from('\x89PNG fake bytes');
    await s3.put('uploads/upl_1_abc.png', body, 'image/png');
    const got = await s3.get('uploads/upl_1_abc.png');
    assert.ok(got);
    assert.deepEqual(got.body, body);
    assert.equal(got.contentType, 'image/png');
    assert.equal(got.size, body.length);
    assert.equal(await s3.exists('uploads/upl_1_abc.png'), true);
    await s3.delete('uploads/upl_1_abc.png');
    assert.equal(await s3.exists('uploads/upl_1_abc.png'), false);
    assert.equal(await s3.get('uploads/upl_1_abc.png'), null);
    await s3.delete('uploads/upl_1_abc.png'); // deleting a missing key is not an error
  });

  it('stores an object of several megabytes intact, as a multipart upload above one part', async () => {
    const s3 = storage();
    const big = Buffer.alloc(12 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    await s3.put('mockups/big.jpg', big, 'image/jpeg');
    assert.ok((await s3.get('mockups/big.jpg'))!.body.equals(big));
    // an S3 ETag ends in -<parts> exactly when the object was assembled from a multipart upload
    const etag = async (k: string) => (await s3.client.send(new HeadObjectCommand({ Bucket: bucket, Key: k }))).ETag;
    assert.match((await etag('mockups/big.jpg'))!, /-2"$/, '12 MiB in 8 MiB parts: two parts');
    const small = big.subarray(0, S3_PART_SIZE);
    await s3.put('mockups/one-part.jpg', small, 'image/jpeg');
    assert.doesNotMatch((await etag('mockups/one-part.jpg'))!, /-\d+"$/, 'up to one part: a single PUT');
    assert.ok((await s3.get('mockups/one-part.jpg'))!.body.equals(small));
  });

  it('reads an object as a stream (getStream), on S3 and on local disk alike; null when missing', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i += 1024) big[i] = i % 251;
    const dir = mkdtempSync(path.join(tmpdir(), 'stream-'));
    for (const st of [storage(), new LocalDiskStorage(dir)]) {
      await st.put('archives/blk_1_a.zip', big, 'application/zip');
      const got = await st.getStream!('archives/blk_1_a.zip');
      assert.ok(got, st.kind);
      assert.equal(got.size, big.length);
      assert.equal(got.contentType, 'application/zip');
      const chunks: Buffer[] = [];
      for await (const c of got.body) chunks.push(c as Buffer);
      assert.ok(chunks.length > 1, `${st.kind}: read in several chunks`);
      assert.ok(Buffer.concat(chunks).equals(big), st.kind);
      assert.equal(await st.getStream!('archives/none.zip'), null, st.kind);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the key prefix', async () => {
    await storage({ prefix: 'tenant-a/' }).put('blanks/x.jpg', Buffer.from('jpg'), 'image/jpeg');
    assert.equal(await storage().exists('tenant-a/blanks/x.jpg'), true);
    assert.deepEqual((await storage({ prefix: 'tenant-a/' }).get('blanks/x.jpg'))?.body, Buffer.from('jpg'));
  });

  it('surfaces S3 errors with status and code, e.g. a wrong secret', async () => {
    const s3 = storage({ secretAccessKey: 'wrong-secret', maxAttempts: 1 });
    await assert.rejects(
      () => s3.put('k.png', Buffer.from('x'), 'image/png'),
      /S3 PUT k.png failed: HTTP 403 SignatureDoesNotMatch/,
    );
    await assert.rejects(() => s3.get('k.png'), /HTTP 403 SignatureDoesNotMatch/);
  });

  it('refuses keys that could walk out of the store, and bad bucket names', async () => {
    await assert.rejects(() => storage().get('../etc/passwd'), /invalid storage key/);
    assert.throws(() => new S3Storage({ bucket: 'Bad_Bucket', region: 'x' }), /invalid S3 bucket/);
  });

  it('is chosen by STORAGE_DRIVER; static keys are optional (the SDK credential chain), but both or neither', () => {
    const base = { DATA_DIR: '/tmp/mockup-s3-test', APP_SECRET: 'x'.repeat(40) };
    assert.ok(createStorage(loadConfig({}, base)) instanceof LocalDiskStorage);
    const s3 = createStorage(
      loadConfig({}, { ...base, STORAGE_DRIVER: 's3', S3_BUCKET: 'mockups', S3_ENDPOINT: 'http://minio:9000' }),
    );
    assert.ok(s3 instanceof S3Storage);
    assert.equal(s3.kind, 's3');
    assert.throws(() => createStorage(loadConfig({}, { ...base, STORAGE_DRIVER: 's3' })), /S3_BUCKET: required/);
    assert.throws(
      () =>
        createStorage(loadConfig({}, { ...base, STORAGE_DRIVER: 's3', S3_BUCKET: 'mockups', S3_ACCESS_KEY_ID: 'a' })),
      /set both or neither/,
    );
  });
});

describe('the API with STORAGE_DRIVER=s3: upload -> generate -> serve', function () {
  this.timeout(120_000);
  let stack: Stack;
  const bucket = `stack-${randomSuffix(8)}`;

  before(async () => {
    stack = await startStack('s3', {
      env: {
        STORAGE_DRIVER: 's3',
        S3_ENDPOINT: endpoint(),
        S3_BUCKET: bucket,
        S3_ACCESS_KEY_ID: creds().accessKeyId,
        S3_SECRET_ACCESS_KEY: creds().secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
        ALLOW_PRIVATE_URLS: 'true',
      },
    });
    await (stack.storage as S3Storage).ensureBucket();
  });
  after(async () => {
    await stack?.stop();
  });

  it('stores the upload in the bucket, composites from blanks read from the bucket, and serves the mockup', async () => {
    const acct = await account(stack.baseUrl);
    // The run's catalogue was seeded to local disk: copy one blank with its fabric maps into the bucket.
    const garments = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: acct.key });
    const garment = garments.body.garments[0];
    const color = garment.colors.find((c: { available: boolean }) => c.available);
    const blankKey = new URL(color.imageUrl).pathname.replace(/^\/files\//, '');
    const local = createStorage(loadConfig(process.env, { STORAGE_DRIVER: 'local' }));
    for (const key of [blankKey, ...Object.values(fabricMapKeys(blankKey))]) {
      const obj = await local.get(key);
      if (obj) await stack.storage.put(key, obj.body, obj.contentType);
    }
    assert.equal(await stack.storage.exists(blankKey), true);

    const design = await sharp({
      create: { width: 800, height: 800, channels: 4, background: { r: 20, g: 60, b: 200, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(design)], { type: 'image/png' }), 'd.png');
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', { key: acct.key, body: form });
    assert.equal(up.status, 201, up.text);
    const uploadKey = new URL(up.body.url).pathname.replace(/^\/files\//, '');
    assert.equal(await stack.storage.exists(uploadKey), true, 'the upload is in the bucket');

    const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: { designUrl: up.body.url, garmentId: garment.id, garmentImageUrl: color.imageUrl },
    });
    assert.equal(gen.status, 200, gen.text);
    assert.equal(gen.body.status, 'completed', gen.text);
    const mockupKey = new URL(gen.body.mockupUrl).pathname.replace(/^\/files\//, '');
    assert.equal(await stack.storage.exists(mockupKey), true, 'the mockup is in the bucket');

    const served = await fetch(gen.body.mockupUrl);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    assert.equal(meta.format, 'jpeg');
  });
});
