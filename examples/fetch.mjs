// The apparel mockup API with plain fetch (Node.js 18+, no dependencies): upload, analyze, generate synchronously and
// asynchronously with polling, a batch, list with cursors, and receive and verify a signed callback.
//
//   MOCKUP_BASE_URL=https://mockups.example.com MOCKUP_API_KEY=amk_test_… MOCKUP_DESIGN=logo.png node examples/fetch.mjs
//
// Optional: MOCKUP_WEBHOOK_SECRET=whsec_… (GET /api/v1/webhooks/secret in the dashboard) and MOCKUP_CALLBACK_HOST, a
// host name the service can reach this machine at: the script then listens for one callback on a free port and
// verifies its signature. Use a test key (amk_test_…) and nothing is charged. Prints one JSON line per step.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename } from 'node:path';

const BASE = (process.env.MOCKUP_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const KEY = process.env.MOCKUP_API_KEY;
const DESIGN = process.env.MOCKUP_DESIGN;
if (!KEY || !DESIGN) {
  console.error('set MOCKUP_API_KEY and MOCKUP_DESIGN (a PNG file); see the comment at the top');
  process.exit(2);
}

const step = (name, fields) => console.log(JSON.stringify({ step: name, ...fields }));

/** One API call: JSON in and out, the key, and the error envelope turned into an exception. */
async function api(method, path, { json, body, headers = {} } = {}) {
  const res = await fetch(BASE + path, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: json !== undefined ? JSON.stringify(json) : body,
  });
  const data = await res.json();
  if (!res.ok) {
    const e = data.error ?? {};
    throw new Error(
      `${method} ${path}: ${res.status} ${e.code}: ${e.message} (request ${res.headers.get('x-request-id')})`,
    );
  }
  return data;
}

// Writes carry an Idempotency-Key: sending the same request again with the same key is safe (no second charge).
const idempotent = () => ({ 'Idempotency-Key': randomUUID() });

// 1. Upload the design (multipart/form-data, part "file").
const form = new FormData();
form.append('file', new Blob([readFileSync(DESIGN)], { type: 'image/png' }), basename(DESIGN));
const upload = await api('POST', '/api/v1/upload', { body: form, headers: idempotent() });
step('upload', { id: upload.id, url: upload.url, width: upload.dimensions.width });

// 2. Analyze it.
const analysis = await api('POST', '/api/v1/analyze', { json: { imageUrl: upload.url, quantity: 100 } });
step('analyze', { colors: analysis.colors.count, technique: analysis.recommendation.technique });

// 3. A garment and its blank.
const { garments } = await api('GET', '/api/v1/garments?category=t-shirts&limit=1');
const garment = garments[0];
const generateBody = { designUrl: upload.url, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl };

// 4. Generate synchronously: the answer is the finished generation (200), or 202 if it took too long.
const sync = await api('POST', '/api/v1/generate', { json: generateBody, headers: idempotent() });
step('generate', { id: sync.id, status: sync.status, mockupUrl: sync.mockupUrl, livemode: sync.livemode });

// 5. Generate asynchronously (Prefer: respond-async, 202 at once) and poll until it is finished.
async function waitFor(id) {
  for (;;) {
    const g = await api('GET', `/api/v1/generations/${id}`);
    if (g.status === 'completed' || g.status === 'failed') return g;
    await new Promise((r) => setTimeout(r, 500));
  }
}
const accepted = await api('POST', '/api/v1/generate', {
  json: generateBody,
  headers: { ...idempotent(), prefer: 'respond-async' },
});
const polled = await waitFor(accepted.id);
step('generate-async', { id: polled.id, acceptedStatus: accepted.status, status: polled.status });

// 6. A batch: the design on two colors in one request.
const batch = await api('POST', '/api/v1/generate/batch', {
  json: {
    designUrl: upload.url,
    garmentId: garment.id,
    items: garment.colors.slice(0, 2).map((c) => ({ color: c.name })),
  },
  headers: idempotent(),
});
step('batch', {
  batchId: batch.batchId,
  ids: batch.generations.map((g) => g.id),
  statuses: batch.generations.map((g) => g.status),
});

// 7. List every generation, two per page, following nextCursor.
const listed = [];
let cursor = null;
do {
  const page = await api('GET', `/api/v1/generations?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  listed.push(...page.generations.map((g) => g.id));
  cursor = page.pagination.hasMore ? page.pagination.nextCursor : null;
} while (cursor);
step('list', { count: listed.length, ids: listed });

// 8. Receive one callback and verify its signature (docs/webhooks.md, "Verifying the signature").
function verify(rawBody, header, secret, now = Date.now()) {
  if (!header) return false;
  let t;
  const sigs = [];
  for (const part of header.split(',')) {
    const [k, v] = part.split('=', 2).map((s) => s && s.trim());
    if (k === 't') t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) sigs.push(Buffer.from(v, 'hex'));
  }
  if (!Number.isInteger(t) || sigs.length === 0) return false;
  if (Math.abs(Math.floor(now / 1000) - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return sigs.some((s) => timingSafeEqual(s, expected));
}

const SECRET = process.env.MOCKUP_WEBHOOK_SECRET;
const HOST = process.env.MOCKUP_CALLBACK_HOST;
if (SECRET && HOST) {
  let resolveCallback;
  const received = new Promise((r) => (resolveCallback = r));
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks); // the exact bytes: verify before parsing
      const ok = verify(raw, req.headers['x-mockup-signature'], SECRET);
      res.writeHead(ok ? 200 : 400).end(); // answer quickly, then work
      resolveCallback({ ok, deliveryId: req.headers['x-mockup-delivery-id'], event: JSON.parse(raw.toString('utf8')) });
    });
  });
  await new Promise((r) => server.listen(0, r));
  const webhookUrl = `http://${HOST}:${server.address().port}/hooks/mockups`;
  const g = await api('POST', '/api/v1/generate', { json: { ...generateBody, webhookUrl }, headers: idempotent() });
  const cb = await received;
  server.close();
  step('callback', {
    id: g.id,
    verified: cb.ok,
    deliveryId: cb.deliveryId,
    event: cb.event.event,
    livemode: cb.event.livemode,
  });
  if (!cb.ok) process.exit(1);
}
step('done', { ok: true });
