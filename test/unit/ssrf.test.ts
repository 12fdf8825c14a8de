import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  classifyAddress,
  dnsResolver,
  guardedFetch,
  isBlockedHostname,
  ownFileKey,
  readUserUrl,
  resolvePublicName,
  UrlFetchError,
  type GuardedFetchOptions,
} from '../../lib/fetch';
import { LocalDiskStorage, type Storage } from '../../lib/storage';

async function rejectsWith(p: Promise<unknown>, reason: string, message?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof UrlFetchError, `expected UrlFetchError, got ${err}`);
    assert.equal(err.reason, reason, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe('address policy', () => {
  const table: [string, string][] = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.10.10', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.100.100.200', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.192', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fd12:3456::1', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'], // NAT64
    ['64:ff9b::808:808', 'public'],
    ['2002:a9fe:a9fe::1', 'cloud-metadata'], // 6to4 of 169.254.169.254
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['[::1]', 'loopback'],
    ['999.1.1.1', 'invalid'],
    ['example.com', 'invalid'],
  ];
  for (const [ip, category] of table) it(`${ip} is ${category}`, () => assert.equal(classifyAddress(ip), category));

  it('blocks internal host names whatever they resolve to', () => {
    for (const h of ['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'foo.internal'])
      assert.equal(isBlockedHostname(h), true, h);
    for (const h of ['example.com', 'localhost.example.com', 'internal.example.com'])
      assert.equal(isBlockedHostname(h), false, h);
  });
});

describe('guardedFetch', () => {
  let server: Server;
  let port: number;
  let requests: { url: string; host?: string }[];
  before(async () => {
    requests = [];
    server = createServer((req, res) => {
      requests.push({ url: req.url!, host: req.headers.host });
      const u = new URL(req.url!, 'http://x');
      switch (u.pathname) {
        case '/ok':
          return res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
        case '/redirect': {
          const n = Number(u.searchParams.get('n') ?? 0);
          return res.writeHead(302, { location: n > 0 ? `/redirect?n=${n - 1}` : '/ok' }).end();
        }
        case '/to':
          return res.writeHead(301, { location: u.searchParams.get('url')! }).end();
        case '/big-declared':
          res.writeHead(200, { 'content-length': String(5000) });
          return res.end(Buffer.alloc(5000));
        case '/big-chunked': {
          // No Content-Length: only counting while streaming can stop it.
          res.writeHead(200, { 'transfer-encoding': 'chunked' });
          let sent = 0;
          const t = setInterval(() => {
            if (sent >= 20 || res.destroyed) {
              clearInterval(t);
              if (!res.destroyed) res.end();
              return;
            }
            sent++;
            res.write(Buffer.alloc(1000));
          }, 2);
          return;
        }
        case '/slow':
          setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
          return;
        case '/drip': {
          res.writeHead(200);
          const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('x')), 50);
          return;
        }
        case '/echo':
          return void (async () => {
            const chunks: Buffer[] = [];
            for await (const c of req) chunks.push(c as Buffer);
            res.writeHead(201, { 'content-type': 'application/json' }).end(
              JSON.stringify({
                method: req.method,
                body: Buffer.concat(chunks).toString(),
                type: req.headers['content-type'],
              }),
            );
          })();
        case '/status':
          return res.writeHead(Number(u.searchParams.get('code'))).end('status');
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  // The test server is on loopback. These options stand in for "the internet": the names below resolve to it,
  // and only that one address counts as allowed, so every other private address is still refused.
  const asPublic = (over: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions => ({
    maxBytes: 1000,
    timeoutMs: 1000,
    resolve: async (host) => {
      if (host === 'public.test' || host === 'other.test') return [{ address: '127.0.0.1', family: 4 }];
      if (host === 'evil.test') return [{ address: '10.0.0.5', family: 4 }];
      if (host === 'mixed.test')
        return [
          { address: '127.0.0.1', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    },
    isAllowed: (a) => a === '127.0.0.1',
    ...over,
  });
  const at = (p: string) => `http://public.test:${port}${p}`;

  it('fetches an allowed URL, connecting to the vetted address (the name itself never resolves)', async () => {
    const res = await guardedFetch(at('/ok'), asPublic());
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'hello');
    assert.equal(requests.at(-1)!.host, `public.test:${port}`, 'Host header keeps the real name');
  });

  it('refuses loopback, private and metadata addresses by default (no test overrides)', async () => {
    const opts = { maxBytes: 1000, timeoutMs: 2000 };
    await rejectsWith(
      guardedFetch(`http://127.0.0.1:${port}/ok`, opts),
      'blocked_address',
      /loopback address \(127\.0\.0\.1\)/,
    );
    await rejectsWith(guardedFetch(`http://localhost:${port}/ok`, opts), 'blocked_address', /internal/);
    await rejectsWith(
      guardedFetch('http://169.254.169.254/latest/meta-data/', opts),
      'blocked_address',
      /cloud metadata/,
    );
    await rejectsWith(guardedFetch('http://[fd00:ec2::254]/', opts), 'blocked_address', /cloud metadata/);
    await rejectsWith(guardedFetch('http://[::ffff:127.0.0.1]/', opts), 'blocked_address', /loopback/);
    await rejectsWith(guardedFetch('http://0x7f.0.0.1/', opts), 'blocked_address', /loopback/); // normalized by the URL parser
    await rejectsWith(guardedFetch('http://2130706433/', opts), 'blocked_address', /loopback/);
    await rejectsWith(guardedFetch('http://0.0.0.0/', opts), 'blocked_address', /unspecified/);
    const before = requests.length;
    assert.equal(requests.length, before, 'nothing was sent');
  });

  it('allows private addresses only when configured to (ALLOW_PRIVATE_URLS)', async () => {
    const res = await guardedFetch(`http://127.0.0.1:${port}/ok`, {
      maxBytes: 1000,
      timeoutMs: 1000,
      allowPrivate: true,
    });
    assert.equal(res.body.toString(), 'hello');
  });

  it('refuses a name that resolves to a private address, or to any private address among public ones', async () => {
    await rejectsWith(
      guardedFetch(`http://evil.test:${port}/ok`, asPublic()),
      'blocked_address',
      /^The URL's host \(evil\.test\) resolves to an address that is not public/,
    );
    await rejectsWith(guardedFetch(`http://mixed.test:${port}/ok`, asPublic()), 'blocked_address', /mixed\.test/);
    // the refusal never tells what a name resolves to
    for (const name of ['evil', 'mixed']) {
      const err = await guardedFetch(`http://${name}.test:${port}/ok`, asPublic()).catch((e: Error) => e);
      assert.ok(err instanceof Error);
      assert.doesNotMatch(
        err.message + JSON.stringify((err as { details?: unknown }).details),
        /10\.0\.0\.5|169\.254|127\.0\.0\.1/,
      );
    }
    await rejectsWith(guardedFetch(`http://nowhere.test:${port}/ok`, asPublic()), 'dns_failed');
  });

  it('fetches only ports 80 and 443 of public hosts, by default', async () => {
    const opts = {
      maxBytes: 1000,
      timeoutMs: 2000,
      resolve: async () => [{ address: '93.184.216.34', family: 4 as const }],
    };
    for (const url of ['http://example.com:8080/x.png', 'https://example.com:22/', 'http://93.184.216.34:6379/']) {
      await rejectsWith(guardedFetch(url, opts), 'blocked_address', /port \d+ is not fetched: only ports 80 and 443/);
    }
  });

  it('checks every redirect again, and refuses one that leads to a forbidden address', async () => {
    const ok = await guardedFetch(at('/redirect?n=1'), asPublic());
    assert.equal(ok.body.toString(), 'hello');
    assert.equal(ok.redirects.length, 2);
    assert.equal(ok.url, at('/ok'));
    await rejectsWith(
      guardedFetch(at(`/to?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`), asPublic()),
      'blocked_address',
      /cloud metadata/,
    );
    await rejectsWith(
      guardedFetch(at(`/to?url=${encodeURIComponent(`http://evil.test:${port}/ok`)}`), asPublic()),
      'blocked_address',
      /evil\.test\) resolves to an address that is not public/,
    );
    await rejectsWith(
      guardedFetch(at(`/to?url=${encodeURIComponent('file:///etc/passwd')}`), asPublic()),
      'unsupported_protocol',
    );
    const followed = await guardedFetch(
      at(`/to?url=${encodeURIComponent(`http://other.test:${port}/ok`)}`),
      asPublic(),
    );
    assert.equal(followed.body.toString(), 'hello');
  });

  it('follows at most 3 redirects by default', async () => {
    assert.equal((await guardedFetch(at('/redirect?n=2'), asPublic())).redirects.length, 3);
    await rejectsWith(guardedFetch(at('/redirect?n=3'), asPublic()), 'too_many_redirects', /more than 3/);
    await rejectsWith(guardedFetch(at('/redirect?n=0'), asPublic({ maxRedirects: 0 })), 'too_many_redirects');
  });

  it('does not follow redirects for POST: the 3xx is the answer', async () => {
    const res = await guardedFetch(
      at('/redirect?n=0'),
      asPublic({ method: 'POST', body: '{}', acceptStatus: () => true }),
    );
    assert.equal(res.status, 302);
  });

  it('enforces the byte limit from Content-Length and while streaming', async () => {
    await rejectsWith(guardedFetch(at('/big-declared'), asPublic({ maxBytes: 4000 })), 'too_large');
    await rejectsWith(guardedFetch(at('/big-chunked'), asPublic({ maxBytes: 4000, timeoutMs: 3000 })), 'too_large');
    assert.equal((await guardedFetch(at('/big-declared'), asPublic({ maxBytes: 5000 }))).body.length, 5000);
  });

  it('enforces one deadline for the whole exchange, including a body that trickles in', async () => {
    const t0 = Date.now();
    await rejectsWith(guardedFetch(at('/slow'), asPublic({ timeoutMs: 200 })), 'timeout');
    await rejectsWith(guardedFetch(at('/drip'), asPublic({ timeoutMs: 300, maxBytes: 10_000 })), 'timeout');
    assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
    const slowDns = asPublic({ timeoutMs: 100, resolve: () => new Promise(() => {}) });
    await rejectsWith(guardedFetch(at('/ok'), slowDns), 'timeout');
  });

  it('refuses non-http(s) schemes, credentials and malformed URLs before any network access', async () => {
    for (const u of [
      'ftp://example.com/x',
      'file:///etc/passwd',
      'gopher://x/',
      'data:text/plain,hi',
      'javascript:alert(1)',
    ])
      await rejectsWith(guardedFetch(u, asPublic()), 'unsupported_protocol');
    await rejectsWith(guardedFetch(`http://user:pw@public.test:${port}/ok`, asPublic()), 'credentials_in_url');
    await rejectsWith(guardedFetch('not a url', asPublic()), 'invalid_url');
  });

  it('reports non-2xx answers with their status, or returns them when asked to', async () => {
    await assert.rejects(
      guardedFetch(at('/status?code=503'), asPublic()),
      (e: any) => e.reason === 'http_status' && e.details.status === 503,
    );
    assert.equal((await guardedFetch(at('/status?code=418'), asPublic({ acceptStatus: () => true }))).status, 418);
  });

  it('sends a body and headers for POST (webhooks)', async () => {
    const res = await guardedFetch(
      at('/echo'),
      asPublic({ method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }),
    );
    assert.equal(res.status, 201);
    assert.deepEqual(JSON.parse(res.body.toString()), { method: 'POST', body: '{"a":1}', type: 'application/json' });
  });

  it('reports connection failures as network_error', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await rejectsWith(guardedFetch(`http://public.test:${deadPort}/`, asPublic()), 'network_error', /ECONNREFUSED/);
  });
});

describe('own file URLs', () => {
  const base = 'https://api.example.com';
  it('recognizes our /files/ URLs by origin and path, and nothing else', () => {
    assert.equal(ownFileKey(base, 'https://api.example.com/files/uploads/upl_1_a.png'), 'uploads/upl_1_a.png');
    assert.equal(ownFileKey(base, 'https://api.example.com/files/uploads/upl_1_a.png?v=2#x'), 'uploads/upl_1_a.png');
    assert.equal(ownFileKey(`${base}/`, 'https://API.EXAMPLE.COM/files/a.png'), 'a.png');
    assert.equal(ownFileKey(base, 'https://api.example.com:8443/files/a.png'), null);
    assert.equal(ownFileKey(base, 'http://api.example.com/files/a.png'), null);
    assert.equal(ownFileKey(base, 'https://api.example.com.evil.test/files/a.png'), null);
    assert.equal(ownFileKey(base, 'https://evil.test/?u=https://api.example.com/files/a.png'), null);
    assert.equal(ownFileKey(base, 'https://api.example.com/other/a.png'), null);
    assert.equal(ownFileKey(base, 'https://api.example.com/files/../secrets'), null); // the URL parser resolves ".."
    assert.equal(ownFileKey(base, 'https://api.example.com/files/%2e%2e/%2e%2e/etc/passwd'), null); // also resolved
    assert.equal(ownFileKey(base, 'https://api.example.com/files/a%20b%00.png'), ''); // ours, but not a valid key
    assert.equal(ownFileKey(base, 'not a url'), null);
    assert.equal(ownFileKey('https://x.example/mockups', 'https://x.example/mockups/files/a.png'), 'a.png');
  });

  it('reads our own files from storage, even with private URLs disallowed, and fetches the rest', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'own-files-'));
    try {
      const storage: Storage = new LocalDiskStorage(dir);
      await storage.put('uploads/a.png', Buffer.from('png bytes'), 'image/png');
      const deps = { config: { publicBaseUrl: 'http://127.0.0.1:9', allowPrivateUrls: false }, storage };
      const own = await readUserUrl(deps, 'http://127.0.0.1:9/files/uploads/a.png', { maxBytes: 100, timeoutMs: 500 });
      assert.equal(own.source, 'storage');
      assert.equal(own.body.toString(), 'png bytes');
      assert.equal(own.contentType, 'image/png');
      await rejectsWith(
        readUserUrl(deps, 'http://127.0.0.1:9/files/uploads/missing.png', { maxBytes: 100, timeoutMs: 500 }),
        'not_found',
      );
      await rejectsWith(
        readUserUrl(deps, 'http://127.0.0.1:9/files/uploads/a.png', { maxBytes: 4, timeoutMs: 500 }),
        'too_large',
      );
      // Same host, not under /files/: goes through the guard, which refuses loopback.
      await rejectsWith(
        readUserUrl(deps, 'http://127.0.0.1:9/api/v1/garments', { maxBytes: 100, timeoutMs: 500 }),
        'blocked_address',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DNS of user URLs (c-ares, bounded)', function () {
  this.timeout(30_000);
  it('a name server that never answers does not pin the libuv pool, and the lookup fails after its tries', async () => {
    const { createSocket } = await import('node:dgram');
    const { pbkdf2 } = await import('node:crypto');
    const silent = createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    const servers = dnsResolver.getServers();
    dnsResolver.setServers([`127.0.0.1:${(silent.address() as { port: number }).port}`]);
    try {
      const events: string[] = [];
      // 8 lookups: with getaddrinfo they would hold all 4 pool threads until the name server timed out
      const lookups = Array.from({ length: 8 }, (_, i) =>
        resolvePublicName(`never-${i}.example`).then(
          () => events.push('lookup answered'),
          () => events.push('lookup failed'),
        ),
      );
      // a task on the libuv pool, queued behind them
      await new Promise<void>((resolve, reject) =>
        pbkdf2('x', 'y', 1000, 32, 'sha256', (err) => (err ? reject(err) : resolve())),
      );
      events.push('pool task done');
      await Promise.all(lookups);
      assert.equal(events[0], 'pool task done', events.join(', '));
      assert.deepEqual(events.slice(1), Array(8).fill('lookup failed'));
    } finally {
      dnsResolver.setServers(servers);
      silent.close();
    }
  });
});
