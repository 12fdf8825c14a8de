import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ciede2000, hexToLab } from '../../lib/analysis';
import * as F from '../helpers/fixtures';
import { account, http } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

const close = (a: string, b: string, de = 3) => ciede2000(hexToLab(a), hexToLab(b)) < de;

describe('printability analysis (POST /api/v1/analyze)', () => {
  let stack: Stack;
  let key: string;
  before(async () => {
    stack = await startStack('analyze', { worker: false });
    ({ key } = await account(stack.baseUrl));
  });
  after(async () => stack?.stop());

  const analyze = (body: unknown, k = key) => http(stack.baseUrl, 'POST', '/api/v1/analyze', { key: k, json: body });
  const analyzeImage = async (img: Buffer, extra: Record<string, unknown> = {}) => {
    const res = await analyze({ imageData: F.toDataUrl(img), ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  function assertInvalid(res: { status: number; body: any; text: string }, message: RegExp) {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request', res.text);
    assert.match(res.body.error.message, message);
  }

  it('answers every field of the analysis result for a crisp two-color logo', async () => {
    const a = await analyzeImage(await F.crispLogo());
    assert.deepEqual(Object.keys(a).sort(), ['colors', 'dimensions', 'pricing', 'recommendation', 'warnings']);
    assert.equal(a.colors.count, 2);
    assert.equal(a.colors.dominant.length, 2);
    // Most covered first: the red disc is larger than the navy ring and bars.
    assert.ok(close(a.colors.dominant[0], F.hex(F.RED)), a.colors.dominant[0]);
    assert.ok(close(a.colors.dominant[1], F.hex(F.NAVY)), a.colors.dominant[1]);
    assert.deepEqual(a.colors.pantone, ['PANTONE 186 C (approximate)', 'PANTONE 286 C (approximate)']);
    assert.deepEqual(a.dimensions, { width: 2400, height: 3000, aspectRatio: 0.8, hasTransparency: true });
    assert.ok(['dtg', 'screen', 'embroidery', 'vinyl'].includes(a.recommendation.technique));
    assert.equal(a.recommendation.complexity, 'simple');
    assert.equal(typeof a.recommendation.reason, 'string');
    assert.equal(a.pricing.dtg.currency, 'USD');
    assert.equal(a.pricing.screen.currency, 'USD');
    assert.ok(a.pricing.dtg.perUnit > 0 && a.pricing.screen.perUnit > 0);
    assert.equal(a.pricing.screen.setup, 2 * 25, 'one screen per color');
    assert.equal(a.pricing.screen.minimumQuantity, 24);
    assert.deepEqual(a.warnings, []);
  });

  it('does not count anti-aliased edges or JPEG noise as colors', async () => {
    const aa = await analyzeImage(await F.antialiasedLogo());
    assert.equal(aa.colors.count, 2, JSON.stringify(aa.colors));
    const jpeg = await analyzeImage(await F.jpegLogoOnWhite(1600, 2000, 60));
    assert.equal(jpeg.colors.count, 3, JSON.stringify(jpeg.colors)); // red, navy and the white box
    assert.equal(jpeg.dimensions.hasTransparency, false);
    const noisy = await analyzeImage(await F.noisyLogo(240, 300), { quantity: 500 });
    assert.equal(noisy.colors.count, 2, JSON.stringify(noisy.colors));
    assert.equal(noisy.recommendation.technique, 'screen', noisy.recommendation.reason);
  });

  it('still counts a color that only appears as a thin outline', async () => {
    const a = await analyzeImage(await F.thinOutlineLogo());
    assert.equal(a.colors.count, 3, JSON.stringify(a.colors));
    assert.ok(
      a.colors.dominant.some((h: string) => close(h, F.hex(F.YELLOW), 8)),
      a.colors.dominant.join(),
    );
    assert.equal(a.pricing.screen.setup, 3 * 25);
  });

  it('flags semi-transparent areas (a soft drop shadow) and prefers DTG for them', async () => {
    const a = await analyzeImage(await F.softShadowLogo(), { quantity: 500 });
    assert.ok(
      a.warnings.some((w: string) => /semi-transparent/.test(w)),
      a.warnings.join('\n'),
    );
    assert.equal(a.recommendation.technique, 'dtg');
    assert.equal(a.recommendation.complexity, 'complex');
  });

  it('counts many colors in a photo-like image and sends it to DTG as complex', async () => {
    const a = await analyzeImage(await F.gradientPhoto());
    assert.ok(a.colors.count > 15, `count ${a.colors.count}`);
    assert.equal(a.colors.dominant.length, 5);
    assert.equal(a.recommendation.technique, 'dtg');
    assert.equal(a.recommendation.complexity, 'complex');
    assert.ok(
      a.warnings.some((w: string) => /gradients or photographic/i.test(w)),
      a.warnings.join('\n'),
    );
    assert.ok(
      a.warnings.some((w: string) => /more than vinyl .* screen printing .* embroidery/i.test(w)),
      a.warnings.join('\n'),
    );
  });

  it('recognizes a smooth two-color gradient as continuous tone', async () => {
    const a = await analyzeImage(await F.twoToneGradient(), { quantity: 1000 });
    assert.equal(a.recommendation.technique, 'dtg');
    assert.ok(a.warnings.some((w: string) => /gradients/i.test(w)));
  });

  it('reports transparency only when some pixel is actually transparent', async () => {
    assert.equal((await analyzeImage(await F.crispLogo(600, 750))).dimensions.hasTransparency, true);
    assert.equal((await analyzeImage(await F.opaqueWhiteBox(600, 750))).dimensions.hasTransparency, false);
    // An RGBA PNG whose alpha is 255 everywhere is not transparent.
    const opaqueWithAlpha = await F.asFormat(await F.opaqueWhiteBox(600, 750), 'webp');
    assert.equal((await analyzeImage(opaqueWithAlpha)).dimensions.hasTransparency, false);
    // Five transparent pixels in 800x1000 are enough.
    assert.equal((await analyzeImage(await F.almostOpaque())).dimensions.hasTransparency, true);
  });

  it('warns about an opaque background box', async () => {
    const a = await analyzeImage(await F.opaqueWhiteBox());
    assert.ok(
      a.warnings.some((w: string) => /opaque #FFFFFF background box/.test(w)),
      a.warnings.join('\n'),
    );
    const clean = await analyzeImage(await F.crispLogo());
    assert.ok(!clean.warnings.some((w: string) => /background box/.test(w)));
  });

  it('warns about low resolution for the print size, and not at the recommended 2400x3000', async () => {
    const low = await analyzeImage(await F.lowRes());
    const w = low.warnings.find((x: string) => /Low resolution/.test(x));
    assert.ok(w, low.warnings.join('\n'));
    assert.match(w, /300x375 px/);
    assert.match(w, /25 dpi/);
    assert.match(w, /2400x3000/);
    const ok = await analyzeImage(await F.crispLogo());
    assert.ok(!ok.warnings.some((x: string) => /resolution/i.test(x)));
  });

  it('warns about colors that vanish on common garments, and detail too fine for embroidery', async () => {
    const white = await analyzeImage(await F.whiteOnTransparent());
    assert.ok(
      white.warnings.some((w: string) => /#FFFFFF .* nearly invisible on white garments/.test(w)),
      white.warnings.join('\n'),
    );
    const hair = await analyzeImage(await F.hairlines());
    assert.equal(hair.colors.count, 2, JSON.stringify(hair.colors));
    assert.ok(
      hair.warnings.some((w: string) => /too fine for embroidery/.test(w)),
      hair.warnings.join('\n'),
    );
  });

  it('warns when there are more colors than screen printing or vinyl allow', async () => {
    const twelve = await analyzeImage(await F.stripes(12));
    assert.equal(twelve.colors.count, 12);
    assert.ok(
      twelve.warnings.some((w: string) =>
        /12 colors, more than vinyl \(up to 3\) and screen printing \(up to 8\)/.test(w),
      ),
      twelve.warnings.join('\n'),
    );
    assert.notEqual(twelve.recommendation.technique, 'screen');
    const six = await analyzeImage(await F.stripes(6), { quantity: 500 });
    assert.equal(six.colors.count, 6);
    assert.equal(six.recommendation.technique, 'screen');
    assert.equal(six.pricing.screen.setup, 6 * 25);
    assert.ok(six.warnings.some((w: string) => /more than vinyl/.test(w)));
  });

  it('uses quantity 50 by default, and screen per-unit price falls as quantity grows', async () => {
    const img = await F.threeColorLogo(1200, 1500);
    const byDefault = await analyzeImage(img);
    const fifty = await analyzeImage(img, { quantity: 50 });
    assert.deepEqual(byDefault.pricing, fifty.pricing);
    assert.deepEqual(byDefault.recommendation, fifty.recommendation);
    const prices: number[] = [];
    for (const q of [24, 100, 500, 2000, 10000])
      prices.push((await analyzeImage(img, { quantity: q })).pricing.screen.perUnit);
    for (let i = 1; i < prices.length; i++) assert.ok(prices[i]! < prices[i - 1]!, `per-unit ${prices.join(' > ')}`);
  });

  it('prices DTG by ink coverage: a full opaque box costs more per piece than a logo on transparency', async () => {
    const logo = await analyzeImage(await F.crispLogo(), { quantity: 10 });
    const box = await analyzeImage(await F.opaqueWhiteBox(), { quantity: 10 });
    assert.ok(
      box.pricing.dtg.perUnit > logo.pricing.dtg.perUnit,
      `${box.pricing.dtg.perUnit} > ${logo.pricing.dtg.perUnit}`,
    );
  });

  it('recommends by colors and run size: vinyl for a tiny run, screen for a large one', async () => {
    const img = await F.crispLogo(1200, 1500);
    const small = await analyzeImage(img, { quantity: 5 });
    assert.equal(small.recommendation.technique, 'vinyl', small.recommendation.reason);
    assert.match(small.recommendation.reason, /5 pieces/);
    const large = await analyzeImage(img, { quantity: 500 });
    assert.equal(large.recommendation.technique, 'screen', large.recommendation.reason);
    assert.match(large.recommendation.reason, /500 pieces/);
  });

  it('reads imageUrl of our own upload from storage, even though its host is private', async () => {
    const png = await F.crispLogo(1200, 1500);
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', { key, json: { imageData: F.toDataUrl(png) } });
    assert.equal(up.status, 201, up.text);
    assert.equal(stack.config.allowPrivateUrls, false);
    const viaUrl = await analyze({ imageUrl: up.body.url, quantity: 200 });
    assert.equal(viaUrl.status, 200, viaUrl.text);
    const viaData = await analyze({ imageData: F.toDataUrl(png), quantity: 200 });
    assert.deepEqual(viaUrl.body, viaData.body);
    const missing = await analyze({ imageUrl: `${stack.baseUrl}/files/uploads/upl_1_nothinghere.png` });
    assertInvalid(missing, /imageUrl could not be fetched: There is no file/);
    assert.equal(missing.body.error.details.reason, 'not_found');
  });

  it('refuses URLs that point at private, loopback, link-local or metadata addresses', async () => {
    const cases: [string, RegExp][] = [
      [`${stack.baseUrl}/health`, /loopback/],
      ['http://localhost:9/x.png', /internal|loopback/],
      ['http://169.254.169.254/latest/meta-data/', /cloud metadata/],
      ['http://10.0.0.7/x.png', /private network/],
      ['http://[::1]:8080/x.png', /loopback/],
      ['http://[::ffff:127.0.0.1]/x.png', /loopback/],
      ['http://2130706433/x.png', /loopback/],
      ['http://100.100.100.200/', /carrier-grade NAT/],
    ];
    for (const [url, why] of cases) {
      const res = await analyze({ imageUrl: url });
      assertInvalid(res, /^imageUrl could not be fetched/);
      assert.match(res.body.error.message, why, url);
      assert.equal(res.body.error.details.reason, 'blocked_address', url);
    }
  });

  it('refuses non-http(s) URLs', async () => {
    for (const url of [
      'ftp://example.com/a.png',
      'file:///etc/passwd',
      'data:image/png;base64,AAAA',
      'javascript:alert(1)',
      'not a url',
    ]) {
      assertInvalid(await analyze({ imageUrl: url }), /imageUrl: must be an absolute http or https URL/);
    }
  });

  it('requires exactly one of imageUrl and imageData', async () => {
    const img = F.toDataUrl(await F.lowRes());
    assertInvalid(
      await analyze({ imageUrl: 'https://example.com/a.png', imageData: img }),
      /either imageUrl or imageData, not both/,
    );
    assertInvalid(await analyze({}), /imageUrl or imageData is required/);
    assertInvalid(await analyze({ quantity: 10 }), /imageUrl or imageData is required/);
  });

  it('validates quantity: a whole number from 1 to 10000', async () => {
    const img = F.toDataUrl(await F.lowRes());
    for (const quantity of [0, -1, 10001, 1.5, '50', null, true, 1e9]) {
      assertInvalid(await analyze({ imageData: img, quantity }), /quantity: must be a whole number from 1 to 10000/);
    }
    for (const quantity of [1, 10000]) assert.equal((await analyze({ imageData: img, quantity })).status, 200);
  });

  it('refuses bad bodies and images with 400, never 500', async () => {
    assertInvalid(
      await analyze({ imageData: F.toDataUrl(F.SVG, 'image/svg+xml') }),
      /imageData is not a usable image: SVG images are not accepted/,
    );
    assertInvalid(await analyze({ imageData: (await F.truncatedPng()).toString('base64') }), /truncated or corrupt/);
    assertInvalid(await analyze({ imageData: (await F.decompressionBomb()).toString('base64') }), /30000x30000 pixels/);
    assertInvalid(await analyze({ imageData: '%%%' }), /not valid base64/);
    assertInvalid(await analyze({ imageData: F.toDataUrl(await F.oversizedPng()) }), /larger than 10 MB/);
    assertInvalid(await analyze({ imageData: 'aGVsbG8=', color: 'red' }), /Unrecognized key/i);
    const text = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
      key,
      body: 'imageUrl=x',
      headers: { 'content-type': 'text/plain' },
    });
    assertInvalid(text, /JSON body/);
    const broken = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
      key,
      body: '{"imageUrl": ',
      headers: { 'content-type': 'application/json' },
    });
    assertInvalid(broken, /Malformed JSON/);
  });

  it('needs an API key', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
      json: { imageUrl: 'https://example.com/a.png' },
    });
    assert.equal(res.status, 401);
  });

  describe('fetching imageUrl over the network (ALLOW_PRIVATE_URLS=true, to reach a local test server)', () => {
    let open: Stack;
    let openKey: string;
    let server: Server;
    let origin: string;
    let hits: string[];
    before(async () => {
      open = await startStack('analyze-open', { worker: false, env: { ALLOW_PRIVATE_URLS: 'true' } });
      openKey = (await account(open.baseUrl)).key;
      const png = await F.crispLogo(600, 750);
      const big = await F.oversizedPng();
      hits = [];
      server = createServer((req, res) => {
        hits.push(req.url!);
        const u = new URL(req.url!, 'http://x');
        if (u.pathname === '/logo.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
        if (u.pathname === '/misnamed.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(png);
        if (u.pathname === '/page.html')
          return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>hi</body></html>');
        if (u.pathname === '/big.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(big);
        if (u.pathname === '/redirect') {
          // /redirect?n=K redirects K more times through itself, then to the logo: K + 1 redirects in all.
          const n = Number(u.searchParams.get('n') ?? 0);
          return res.writeHead(302, { location: n > 0 ? `/redirect?n=${n - 1}` : '/logo.png' }).end();
        }
        res.writeHead(404).end('not found');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server?.closeAllConnections();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      await open?.stop();
    });
    const fetchAnalyze = (imageUrl: string) =>
      http(open.baseUrl, 'POST', '/api/v1/analyze', { key: openKey, json: { imageUrl } });

    it('analyzes an image fetched by URL, deciding the format from the bytes', async () => {
      const a = await fetchAnalyze(`${origin}/logo.png`);
      assert.equal(a.status, 200, a.text);
      assert.equal(a.body.colors.count, 2);
      const b = await fetchAnalyze(`${origin}/misnamed.txt`);
      assert.equal(b.status, 200, b.text);
      assert.deepEqual(b.body.colors, a.body.colors);
    });

    it('follows up to 3 redirects, and no more', async () => {
      const ok = await fetchAnalyze(`${origin}/redirect?n=2`);
      assert.equal(ok.status, 200, ok.text);
      assertInvalid(await fetchAnalyze(`${origin}/redirect?n=5`), /redirected more than 3 times/);
    });

    it('answers 400 with a clear message for a page that is not an image, a 404 and a file over 10 MB', async () => {
      assertInvalid(
        await fetchAnalyze(`${origin}/page.html`),
        /The file at imageUrl is not a usable image: unsupported image format \(HTML\)/,
      );
      const nf = await fetchAnalyze(`${origin}/missing.png`);
      assertInvalid(nf, /imageUrl could not be fetched: The URL answered with HTTP 404/);
      assert.equal(nf.body.error.details.status, 404);
      assertInvalid(await fetchAnalyze(`${origin}/big.png`), /larger than the 10 MB limit/);
      assertInvalid(await fetchAnalyze('http://127.0.0.1:9/nothing-listens-here.png'), /could not be fetched/);
    });
  });
});
