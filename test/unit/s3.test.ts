import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../lib/config';
import { createStorage, LocalDiskStorage, S3Storage } from '../../lib/storage';
import {
  canonicalPath,
  canonicalQuery,
  EMPTY_SHA256,
  sha256Hex,
  signingKey,
  signV4,
  uriEncode,
} from '../../lib/storage/s3';

// AWS's published examples for S3 ("Examples of signature calculations", Amazon S3 API reference,
// sig-v4-header-based-auth) and the general SigV4 test suite (get-vanilla*).
const S3_DOC = {
  region: 'us-east-1',
  service: 's3',
  credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  date: new Date('2013-05-24T00:00:00Z'),
};
const SUITE = {
  region: 'us-east-1',
  service: 'service',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  date: new Date('2015-08-30T12:36:00Z'),
};

describe('AWS Signature Version 4', () => {
  it('signs the S3 "GET Object" example (Range header, empty payload)', () => {
    const s = signV4({
      ...S3_DOC,
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { Range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_SHA256 },
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(
      s.canonicalRequest,
      [
        'GET',
        '/test.txt',
        '',
        'host:examplebucket.s3.amazonaws.com',
        'range:bytes=0-9',
        `x-amz-content-sha256:${EMPTY_SHA256}`,
        'x-amz-date:20130524T000000Z',
        '',
        'host;range;x-amz-content-sha256;x-amz-date',
        EMPTY_SHA256,
      ].join('\n'),
    );
    assert.equal(
      s.stringToSign,
      'AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
    );
    assert.equal(s.signature, 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    assert.equal(
      s.headers.authorization,
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('signs the S3 "PUT Object" example ($ in the key encoded once, Date and storage-class headers, payload hash)', () => {
    const body = 'Welcome to Amazon S3.';
    const hash = sha256Hex(body);
    assert.equal(hash, '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    const s = signV4({
      ...S3_DOC,
      method: 'PUT',
      url: new URL('https://examplebucket.s3.amazonaws.com/test$file.text'),
      headers: {
        Date: 'Fri, 24 May 2013 00:00:00 GMT',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': hash,
      },
      payloadHash: hash,
    });
    assert.match(s.canonicalRequest, /^PUT\n\/test%24file\.text\n\n/);
    assert.equal(s.stringToSign.split('\n')[3], '9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d');
    assert.equal(s.signature, '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('signs the S3 "GET Bucket Lifecycle" (valueless parameter) and "List Objects" (sorted query) examples', () => {
    const lifecycle = signV4({
      ...S3_DOC,
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/?lifecycle'),
      headers: { 'x-amz-content-sha256': EMPTY_SHA256 },
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(lifecycle.canonicalRequest.split('\n')[2], 'lifecycle=');
    assert.equal(lifecycle.signature, 'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543');
    const list = signV4({
      ...S3_DOC,
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2'),
      headers: { 'x-amz-content-sha256': EMPTY_SHA256 },
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(list.canonicalRequest.split('\n')[2], 'max-keys=2&prefix=J');
    assert.equal(list.signature, '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });

  it('matches the SigV4 test suite get-vanilla vectors (no payload header, another service)', () => {
    const vanilla = signV4({
      ...SUITE,
      method: 'GET',
      url: new URL('https://example.amazonaws.com/'),
      headers: {},
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(vanilla.signature, '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    const ordered = signV4({
      ...SUITE,
      method: 'GET',
      url: new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1'),
      headers: {},
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(ordered.canonicalRequest.split('\n')[2], 'Param1=value1&Param2=value2');
    assert.equal(ordered.signature, 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  it('derives the signing key by the documented HMAC chain, recomputed independently here', () => {
    const h = (k: Buffer | string, d: string) => createHmac('sha256', k).update(d).digest();
    const kDate = h(`AWS4${S3_DOC.credentials.secretAccessKey}`, '20130524');
    const kRegion = h(kDate, 'us-east-1');
    const kService = h(kRegion, 's3');
    const kSigning = h(kService, 'aws4_request');
    assert.deepEqual(signingKey(S3_DOC.credentials.secretAccessKey, '20130524', 'us-east-1', 's3'), kSigning);
    // And the final signature is HMAC(kSigning, stringToSign) with the hash of the canonical request inside.
    const s = signV4({
      ...S3_DOC,
      method: 'DELETE',
      url: new URL('https://b.example/k'),
      headers: {},
      payloadHash: EMPTY_SHA256,
    });
    const expected = [
      'AWS4-HMAC-SHA256',
      '20130524T000000Z',
      '20130524/us-east-1/s3/aws4_request',
      createHash('sha256').update(s.canonicalRequest).digest('hex'),
    ].join('\n');
    assert.equal(s.stringToSign, expected);
    assert.equal(s.signature, createHmac('sha256', kSigning).update(expected).digest('hex'));
  });

  it('encodes paths and queries the RFC 3986 way, and signs the session token', () => {
    assert.equal(uriEncode("a b!'()*~"), 'a%20b%21%27%28%29%2A~');
    assert.equal(uriEncode('a/b', true), 'a/b');
    assert.equal(uriEncode('a/b'), 'a%2Fb');
    assert.equal(uriEncode('ключ'), '%D0%BA%D0%BB%D1%8E%D1%87');
    assert.equal(canonicalPath('/bucket/a%20b/c$d'), '/bucket/a%20b/c%24d');
    assert.equal(canonicalQuery('?b=2&a=x%20y&a=%2B&c'), 'a=%2B&a=x%20y&b=2&c=');
    const s = signV4({
      ...S3_DOC,
      credentials: { ...S3_DOC.credentials, sessionToken: 'tok' },
      method: 'GET',
      url: new URL('https://b.example/k'),
      headers: {},
      payloadHash: EMPTY_SHA256,
    });
    assert.equal(s.headers['x-amz-security-token'], 'tok');
    assert.match(s.headers.authorization!, /SignedHeaders=host;x-amz-date;x-amz-security-token,/);
  });
});

/** A minimal S3 stand-in: keeps objects in memory and checks every request's signature the way S3 does. */
function fakeS3(opts: { bucket: string; secret: string }) {
  const objects = new Map<string, { body: Buffer; type: string; cacheControl?: string }>();
  const seen: { method: string; path: string; authorized: boolean }[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url!, `http://${req.headers.host}`);
    // Recompute the signature from what actually arrived on the wire.
    const auth = String(req.headers.authorization ?? '');
    const m =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        auth,
      );
    let authorized = false;
    if (m) {
      const signedNames = m[4]!.split(';');
      const headers: Record<string, string> = {};
      for (const n of signedNames) if (n !== 'host' && n !== 'x-amz-date') headers[n] = String(req.headers[n] ?? '');
      const payload = String(req.headers['x-amz-content-sha256']);
      const again = signV4({
        method: req.method!,
        url,
        headers,
        payloadHash: payload,
        region: m[3]!,
        service: 's3',
        credentials: { accessKeyId: m[1]!, secretAccessKey: opts.secret },
        date: new Date(
          String(req.headers['x-amz-date']).replace(
            /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/,
            '$1-$2-$3T$4:$5:$6Z',
          ),
        ),
      });
      authorized = again.signature === m[5] && payload === sha256Hex(body);
    }
    seen.push({ method: req.method!, path: url.pathname, authorized });
    if (!authorized) {
      res
        .writeHead(403, { 'content-type': 'application/xml' })
        .end(
          '<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>',
        );
      return;
    }
    const prefix = `/${opts.bucket}/`;
    if (!url.pathname.startsWith(prefix)) return res.writeHead(404).end();
    const key = decodeURIComponent(url.pathname.slice(prefix.length));
    const obj = objects.get(key);
    switch (req.method) {
      case 'PUT':
        objects.set(key, {
          body,
          type: String(req.headers['content-type']),
          cacheControl: req.headers['cache-control'],
        });
        return res.writeHead(200).end();
      case 'GET':
        if (!obj)
          return res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
        return res.writeHead(200, { 'content-type': obj.type }).end(obj.body);
      case 'HEAD':
        return res.writeHead(obj ? 200 : 404).end();
      case 'DELETE':
        objects.delete(key);
        return res.writeHead(204).end();
    }
    res.writeHead(405).end();
  });
  return { server, objects, seen };
}

describe('S3Storage', () => {
  let fake: ReturnType<typeof fakeS3>;
  let endpoint: string;
  const creds = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret-key' };
  before(async () => {
    fake = fakeS3({ bucket: 'mockups', secret: creds.secretAccessKey });
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    fake.server.closeAllConnections();
    await new Promise<void>((r) => (fake.server as Server).close(() => r()));
  });

  const storage = (over: Partial<ConstructorParameters<typeof S3Storage>[0]> = {}) =>
    new S3Storage({ bucket: 'mockups', region: 'eu-central-1', endpoint, forcePathStyle: true, ...creds, ...over });

  it('puts, gets, checks and deletes objects with correctly signed requests', async () => {
    const s3 = storage();
    const body = Buffer.from('\x89PNG fake bytes');
    await s3.put('uploads/upl_1_abc.png', body, 'image/png');
    assert.equal(fake.objects.get('uploads/upl_1_abc.png')?.type, 'image/png');
    assert.match(fake.objects.get('uploads/upl_1_abc.png')?.cacheControl ?? '', /immutable/);
    const got = await s3.get('uploads/upl_1_abc.png');
    assert.ok(got);
    assert.deepEqual(got.body, body);
    assert.equal(got.contentType, 'image/png');
    assert.equal(got.size, body.length);
    assert.equal(await s3.exists('uploads/upl_1_abc.png'), true);
    await s3.delete('uploads/upl_1_abc.png');
    assert.equal(await s3.exists('uploads/upl_1_abc.png'), false);
    assert.equal(await s3.get('uploads/upl_1_abc.png'), null);
    assert.ok(
      fake.seen.every((r) => r.authorized),
      JSON.stringify(fake.seen),
    );
  });

  it('applies the key prefix', async () => {
    const s3 = storage({ prefix: 'tenant-a/' });
    await s3.put('blanks/x.jpg', Buffer.from('jpg'), 'image/jpeg');
    assert.ok(fake.objects.has('tenant-a/blanks/x.jpg'));
    assert.deepEqual((await s3.get('blanks/x.jpg'))?.body, Buffer.from('jpg'));
  });

  it('surfaces S3 errors with their code, e.g. a wrong secret', async () => {
    const s3 = storage({ secretAccessKey: 'wrong' });
    await assert.rejects(() => s3.put('k.png', Buffer.from('x'), 'image/png'), /HTTP 403 SignatureDoesNotMatch/);
    await assert.rejects(() => s3.get('k.png'), /SignatureDoesNotMatch/);
  });

  it('builds path-style and virtual-hosted-style URLs, and AWS endpoints by region', () => {
    assert.equal(storage().objectUrl('uploads/a.png').href, `${endpoint}/mockups/uploads/a.png`);
    const vhost = new S3Storage({
      bucket: 'mockups',
      region: 'eu-west-1',
      ...creds,
      endpoint: 'https://s3.example.com',
    });
    assert.equal(vhost.objectUrl('uploads/a.png').href, 'https://mockups.s3.example.com/uploads/a.png');
    const aws = new S3Storage({ bucket: 'mockups', region: 'eu-west-1', ...creds });
    assert.equal(aws.objectUrl('a.png').href, 'https://mockups.s3.eu-west-1.amazonaws.com/a.png');
    assert.throws(() => aws.objectUrl('../etc/passwd'), /invalid storage key/);
    assert.throws(() => new S3Storage({ bucket: 'Bad_Bucket', region: 'x', ...creds }), /invalid S3 bucket/);
  });

  it('is chosen by STORAGE_DRIVER, and refuses to start without its credentials', () => {
    const base = { DATA_DIR: '/tmp/mockup-s3-test', APP_SECRET: 'x'.repeat(40) };
    assert.ok(createStorage(loadConfig({}, base)) instanceof LocalDiskStorage);
    const cfg = loadConfig(
      {},
      {
        ...base,
        STORAGE_DRIVER: 's3',
        S3_BUCKET: 'mockups',
        S3_ACCESS_KEY_ID: 'a',
        S3_SECRET_ACCESS_KEY: 'b',
        S3_ENDPOINT: 'http://minio:9000',
        S3_FORCE_PATH_STYLE: 'true',
      },
    );
    const s3 = createStorage(cfg);
    assert.ok(s3 instanceof S3Storage);
    assert.equal(s3.kind, 's3');
    assert.equal((s3 as S3Storage).objectUrl('a.png').href, 'http://minio:9000/mockups/a.png');
    assert.throws(
      () => createStorage(loadConfig({}, { ...base, STORAGE_DRIVER: 's3', S3_BUCKET: 'mockups' })),
      /S3_ACCESS_KEY_ID: required when STORAGE_DRIVER=s3[\s\S]*S3_SECRET_ACCESS_KEY/,
    );
    assert.throws(() => loadConfig({}, { ...base, STORAGE_DRIVER: 'ftp' }), /STORAGE_DRIVER/);
  });
});
