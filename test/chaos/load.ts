// The bounded load of a chaos run: API clients spread over every API process (single and batch generations with a
// webhookUrl, listings, mockup downloads), design chat jobs, Stripe events and Shopify webhooks, each sender
// redelivering until it gets a 200 the way Stripe and Shopify do. Every HTTP exchange is recorded (which API, when,
// what came back) so the invariants can tell a 5xx from an API being killed from any other.
import { randomBytes, randomUUID } from 'node:crypto';
import { signBody } from '../../scripts/stand-ins/shopify-shop';
import { checkoutSession, signedEvent } from '../../scripts/stand-ins/stripe-events';
import { sleep } from '../helpers/wait';
import type { Rng } from './rng';

export interface CallRecord {
  /** index of the API process, or -1 for the load balancer */
  api: number;
  method: string;
  route: string;
  t0: number;
  t1: number;
  status: number | null;
  /** the Retry-After header of a 5xx or 429 */
  retryAfter?: string;
  error?: string;
}

export interface Reply {
  status: number | null;
  body: any;
  headers: Headers | null;
  error?: string;
}

/** Route templates for the report: ids replaced so calls group by route. */
export const routeOf = (method: string, path: string) =>
  `${method} ${path
    .split('?')[0]!
    .replace(/\/(gen|job|upl|batch-gen)_[\w-]+/g, '/:id')
    .replace(/\/files\/.+$/, '/files/:key')}`;

/** HTTP to one API process (by index) or to the load balancer (-1), every exchange recorded. */
export class Http {
  readonly records: CallRecord[] = [];
  constructor(
    private readonly apiUrls: string[],
    private readonly balancerUrl: string,
  ) {}

  get apis(): number {
    return this.apiUrls.length;
  }

  async call(
    api: number,
    method: string,
    path: string,
    opts: {
      json?: unknown;
      body?: string;
      headers?: Record<string, string>;
      cookie?: string;
      key?: string;
      timeoutMs?: number;
      binary?: boolean;
    } = {},
  ): Promise<Reply> {
    const base = api < 0 ? this.balancerUrl : this.apiUrls[api]!;
    const headers: Record<string, string> = { ...opts.headers };
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const rec: CallRecord = { api, method, route: routeOf(method, path), t0: Date.now(), t1: 0, status: null };
    this.records.push(rec);
    try {
      const res = await fetch(base + path, {
        method,
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
      });
      let parsed: any;
      if (opts.binary) parsed = Buffer.from(await res.arrayBuffer());
      else {
        const text = await res.text();
        parsed = text;
        if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      }
      rec.t1 = Date.now();
      rec.status = res.status;
      const retryAfter = res.headers.get('retry-after');
      if (retryAfter !== null) rec.retryAfter = retryAfter;
      return { status: res.status, body: parsed, headers: res.headers };
    } catch (err) {
      rec.t1 = Date.now();
      const e = err as Error & { cause?: { code?: string } };
      rec.error = e.cause?.code ?? e.name ?? String(err);
      return { status: null, body: null, headers: null, error: rec.error };
    }
  }
}

export interface ChaosAccount {
  userId: string;
  email: string;
  cookie: string;
  key: string;
  webhookSecret: string;
  designUrl?: string;
}

export interface Garment {
  id: string;
  colors: { name: string; imageUrl: string; available?: boolean }[];
}

/** What the load produced, for the invariants. */
export interface LoadLedger {
  /** generation ids the API accepted (200/202), with how */
  generations: Map<string, { userId: string; api: number; batch: boolean; webhook: boolean; answered: number }>;
  /** generation requests that got no answer (an API killed under them): unknown whether accepted */
  unanswered: number;
  chat: { sent: number; accepted: number; completed200: number; userIds: Set<string> };
  stripe: StripeSent[];
  shopify: ShopifySent[];
  downloads: { ok: number; failed: { url: string; status: number | null }[] };
}

export interface StripeSent {
  eventId: string;
  sessionId: string;
  userId: string;
  tokens: number;
  /** times the service answered 200 (a redelivery of a delivered event adds one) */
  acks: number;
  attempts: number;
}

export interface ShopifySent {
  webhookId: string;
  topic: string;
  orderGid: string;
  acks: number;
  attempts: number;
}

export function newLedger(): LoadLedger {
  return {
    generations: new Map(),
    unanswered: 0,
    chat: { sent: 0, accepted: 0, completed200: 0, userIds: new Set() },
    stripe: [],
    shopify: [],
    downloads: { ok: 0, failed: [] },
  };
}

export interface LoadContext {
  http: Http;
  ledger: LoadLedger;
  receiverUrl: string;
  garment: Garment;
  /** the load stops starting new work at this time */
  endAt: number;
  /** senders stop redelivering at this time */
  deliverUntil: () => number;
}

/** An API client: generations single and batch (sync and async) with a webhookUrl, listings and downloads. */
export async function apiClient(ctx: LoadContext, acct: ChaosAccount, rng: Rng): Promise<void> {
  const colors = ctx.garment.colors.filter((c) => c.available !== false);
  const completedMockups: string[] = [];
  while (Date.now() < ctx.endAt) {
    const api = rng.int(0, ctx.http.apis - 1);
    const r = rng.next();
    const webhookUrl = `${ctx.receiverUrl}/hook/${acct.userId}`;
    const placement = { x: 50, y: 35, scale: Math.round((0.5 + rng.next() * 0.4) * 1000) / 1000, rotation: 0 };
    if (r < 0.55) {
      const async = rng.chance(0.5);
      const color = rng.pick(colors);
      const res = await ctx.http.call(api, 'POST', '/api/v1/generate', {
        key: acct.key,
        headers: async ? { prefer: 'respond-async' } : {},
        json: {
          designUrl: acct.designUrl,
          garmentId: ctx.garment.id,
          garmentImageUrl: color.imageUrl,
          placement,
          webhookUrl,
        },
        timeoutMs: 40_000,
      });
      if (res.status === 200 || res.status === 202) {
        ctx.ledger.generations.set(res.body.id, {
          userId: acct.userId,
          api,
          batch: false,
          webhook: true,
          answered: res.status,
        });
        if (res.body.status === 'completed' && res.body.mockupUrl) completedMockups.push(res.body.mockupUrl);
      } else if (res.status === null) ctx.ledger.unanswered++;
    } else if (r < 0.8) {
      const n = rng.int(2, 4);
      const res = await ctx.http.call(api, 'POST', '/api/v1/generate/batch', {
        key: acct.key,
        headers: { prefer: 'respond-async' },
        json: {
          designUrl: acct.designUrl,
          garmentId: ctx.garment.id,
          placement,
          items: Array.from({ length: n }, () => ({ color: rng.pick(colors).name })),
          webhookUrl,
        },
        timeoutMs: 40_000,
      });
      if (res.status === 200 || res.status === 202) {
        for (const g of res.body.generations as { id: string }[])
          ctx.ledger.generations.set(g.id, {
            userId: acct.userId,
            api,
            batch: true,
            webhook: true,
            answered: res.status,
          });
      } else if (res.status === null) ctx.ledger.unanswered++;
    } else if (r < 0.9) {
      const res = await ctx.http.call(api, 'GET', '/api/v1/generations?limit=10', { key: acct.key });
      if (res.status === 200)
        for (const g of res.body.generations as { status: string; mockupUrl?: string }[])
          if (g.status === 'completed' && g.mockupUrl) completedMockups.push(g.mockupUrl);
    } else if (completedMockups.length > 0) {
      // the serve path: a mockup URL as given (PUBLIC_BASE_URL: the load balancer)
      const url = rng.pick(completedMockups);
      const res = await ctx.http.call(-1, 'GET', new URL(url).pathname, { binary: true });
      if (res.status === 200 && (res.headers?.get('content-type') ?? '').startsWith('image/'))
        ctx.ledger.downloads.ok++;
      else if (res.status !== null) ctx.ledger.downloads.failed.push({ url, status: res.status });
    }
    await sleep(rng.int(300, 1200));
  }
}

const PROMPTS = [
  'a red sun over navy mountains with the words RIDE ON',
  'a green tree and the words STAY WILD in bold',
  'a yellow star badge saying NIGHT SHIFT',
  'an orange wave with the words SURF CLUB',
  'a purple moon and the words LATE NIGHTS',
  'a blue bolt with the words FULL POWER',
];

/** A design chat user: a job every few seconds, well under the 10 per minute limit. */
export async function chatClient(ctx: LoadContext, acct: ChaosAccount, rng: Rng): Promise<void> {
  ctx.ledger.chat.userIds.add(acct.userId);
  await sleep(rng.int(1000, 4000));
  while (Date.now() < ctx.endAt) {
    const api = rng.int(0, ctx.http.apis - 1);
    ctx.ledger.chat.sent++;
    const res = await ctx.http.call(api, 'POST', '/api/chat', {
      cookie: acct.cookie,
      json: { prompt: rng.pick(PROMPTS), model: 'nano-banana' },
      timeoutMs: 60_000,
    });
    if (res.status === 200 || res.status === 202) ctx.ledger.chat.accepted++;
    if (res.status === 200) ctx.ledger.chat.completed200++;
    await sleep(rng.int(7000, 12000));
  }
}

/** Delivers until the service answers 200 (as the sender would), alternating APIs, with a capped backoff. */
async function deliver(
  ctx: LoadContext,
  rng: Rng,
  firstApi: number,
  send: (api: number) => Promise<Reply>,
  rec: { acks: number; attempts: number },
): Promise<void> {
  let api = firstApi;
  let wait = 500;
  for (;;) {
    rec.attempts++;
    const res = await send(api);
    if (res.status === 200) {
      rec.acks++;
      return;
    }
    if (Date.now() > ctx.deliverUntil()) return;
    await sleep(wait);
    wait = Math.min(wait * 2, 5000);
    api = (api + 1) % ctx.http.apis;
    void rng;
  }
}

/** The service's default token packs (STRIPE_TOKEN_PACKS unset in the chaos cluster). */
const TOKEN_PACKS = [
  { priceId: 'price_pack_100', tokens: 100 },
  { priceId: 'price_pack_500', tokens: 500 },
];

/** Token-pack purchases as Stripe sends them (signed), some redelivered later to the other API. */
export async function stripeSender(
  ctx: LoadContext,
  accounts: ChaosAccount[],
  secret: string,
  rng: Rng,
): Promise<Promise<void>[]> {
  const inFlight: Promise<void>[] = [];
  while (Date.now() < ctx.endAt) {
    const acct = rng.pick(accounts);
    const pack = rng.pick(TOKEN_PACKS);
    const tokens = pack.tokens;
    // Only sessions the service created grant: the session is created through its checkout (at the local checkout
    // stand-in, which keeps its line items), then reported as Stripe reports it. An API down now: try again later.
    const created = await ctx.http.call(rng.int(0, ctx.http.apis - 1), 'POST', '/api/payments/checkout', {
      json: { priceId: pack.priceId, mode: 'payment' },
      cookie: acct.cookie,
      timeoutMs: 15_000,
    });
    if (created.status !== 200) {
      await sleep(rng.int(500, 1500));
      continue;
    }
    const session = checkoutSession({ userId: acct.userId, mode: 'payment', tokens, id: created.body.sessionId });
    const e = signedEvent(secret, 'checkout.session.completed', session);
    const rec: StripeSent = { eventId: e.id, sessionId: session.id, userId: acct.userId, tokens, acks: 0, attempts: 0 };
    ctx.ledger.stripe.push(rec);
    const post = (api: number) =>
      ctx.http.call(api, 'POST', '/api/payments/webhook', {
        body: e.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
        timeoutMs: 15_000,
      });
    const first = rng.int(0, ctx.http.apis - 1);
    const again = rng.chance(0.25) ? rng.int(1000, 6000) : null;
    inFlight.push(
      (async () => {
        await deliver(ctx, rng, first, post, rec);
        if (again !== null) {
          await sleep(again);
          await deliver(ctx, rng, (first + 1) % ctx.http.apis, post, rec);
        }
      })(),
    );
    await sleep(rng.int(1200, 3000));
  }
  return inFlight;
}

/** orders/create (and for some orders/paid) webhooks for the connected shop, signed; some redelivered. */
export async function shopifySender(
  ctx: LoadContext,
  shopDomain: string,
  apiSecret: string,
  rng: Rng,
): Promise<Promise<void>[]> {
  const inFlight: Promise<void>[] = [];
  let orderId = 5_000_000 + rng.int(0, 1_000_000);
  while (Date.now() < ctx.endAt) {
    const id = ++orderId;
    const payload = {
      id,
      admin_graphql_api_id: `gid://shopify/Order/${id}`,
      name: `#C${id}`,
      email: 'chaos@example.test',
      created_at: new Date().toISOString(),
      currency: 'USD',
      total_price: '59.99',
      financial_status: 'pending',
      customer: { id: 9000 + (id % 100), first_name: 'Grace', last_name: 'Hopper', email: 'chaos@example.test' },
      line_items: [{ id: id * 10, product_id: 1, title: 'Chaos tee', variant_title: 'M', quantity: 1, price: '59.99' }],
    };
    const topics = rng.chance(0.5) ? ['orders/create', 'orders/paid'] : ['orders/create'];
    const first = rng.int(0, ctx.http.apis - 1);
    const again = rng.chance(0.25) ? rng.int(1000, 6000) : null;
    inFlight.push(
      (async () => {
        for (const topic of topics) {
          const body = JSON.stringify(topic === 'orders/paid' ? { ...payload, financial_status: 'paid' } : payload);
          const rec: ShopifySent = {
            webhookId: randomUUID(),
            topic,
            orderGid: payload.admin_graphql_api_id,
            acks: 0,
            attempts: 0,
          };
          ctx.ledger.shopify.push(rec);
          const post = (api: number) =>
            ctx.http.call(api, 'POST', '/api/storefront/webhooks/orders', {
              body,
              headers: {
                'content-type': 'application/json',
                'x-shopify-topic': topic,
                'x-shopify-shop-domain': shopDomain,
                'x-shopify-webhook-id': rec.webhookId,
                'x-shopify-api-version': '2026-10',
                'x-shopify-hmac-sha256': signBody(apiSecret, body),
              },
              timeoutMs: 15_000,
            });
          await deliver(ctx, rng, first, post, rec);
          if (again !== null) {
            await sleep(again);
            await deliver(ctx, rng, (first + 1) % ctx.http.apis, post, rec);
          }
        }
      })(),
    );
    await sleep(rng.int(1500, 3500));
  }
  return inFlight;
}

/** A design the account uploads once (600x600 PNG of a seeded colour). */
export async function designPng(rng: Rng): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const c = () => rng.int(20, 230);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600">
    <circle cx="300" cy="260" r="200" fill="rgb(${c()},${c()},${c()})"/>
    <rect x="120" y="480" width="360" height="60" fill="rgb(${c()},${c()},${c()})"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export const randomPassword = () => `Chaos-${randomBytes(6).toString('hex')}-42`;
