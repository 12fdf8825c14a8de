// DEVELOPMENT STAND-IN: a local hosted checkout and billing portal in front of stripe-mock, so a person can buy
// tokens and manage a subscription from the dashboard with no Stripe account and no internet. Never a code path of
// the product: the service reaches it only because STRIPE_API_URL points its Stripe client here (`npm start` without
// STRIPE_SECRET_KEY, and the test run). With a real STRIPE_SECRET_KEY none of this runs and the URLs are Stripe's.
//
// Every Stripe API request is forwarded to stripe-mock (which validates it against Stripe's OpenAPI spec and answers
// fixtures), except what stripe-mock cannot do because it keeps no state:
// - POST /v1/checkout/sessions: forwarded for validation, then answered with stripe-mock's session carrying what the
//   service asked for (mode, customer, line item, URLs, metadata), a unique `cs_test_…` id and `url` = this server's
//   /checkout/<id>. POST /v1/billing_portal/sessions likewise, with `url` = /portal/<id>. A repeated Idempotency-Key
//   gets the first answer again, as at Stripe.
// - GET /v1/checkout/sessions/<id>, /v1/subscriptions/<id>, /v1/invoices/<id>, GET /v1/invoices?subscription=<id> and
//   GET /v1/invoice_payments?invoice=<id> for the sessions, subscriptions and invoices created here: their real state
//   (stripe-mock would answer fixtures). An invoice's payment names a `pi_local_…` payment intent.
// The pages (server-rendered HTML, forms that POST and redirect):
// - /checkout/<id>: what is bought (plan or pack, price, tokens: the catalogue is read from the service's
//   GET /api/payments/plans), a **Pay** button and a **Cancel** link (to cancel_url). Pay sends the signed events
//   Stripe sends for that session (payment: `checkout.session.completed`; subscription: `checkout.session.completed`,
//   `customer.subscription.created` and the first `invoice.paid` with billing_reason `subscription_create`, with the
//   same customer, subscription and invoice ids throughout), waits for each to be answered 2xx, then redirects
//   (303) to success_url with {CHECKOUT_SESSION_ID} replaced.
// - /portal/<id>: the customer's subscriptions (plan, status, period end); switch plan and cancel at the period end
//   (`customer.subscription.updated`), renew, or cancel now (`customer.subscription.deleted`); a link to return_url.
// Events go to `<origin>/api/payments/webhook`, the origin being the one of the session's success_url (checkout) or
// return_url (portal): the service only accepts URLs on its own origin, so that is the service that asked (under
// `npm start`, PUBLIC_BASE_URL; in tests, each test file's own API). They are signed with the webhook secret.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oneMonthAfter } from '../../lib/payments/event-reads';
import { paidInvoice, postEvent, signedEvent, subscription as subscriptionObject } from './stripe-events';

const LABEL = 'Local stand-in for Stripe (development only)';
/** What the portal page says after an action (`?done=`). */
const NOTES = {
  switched: 'Your plan was switched.',
  cancelled: 'Your subscription is cancelled: it ends at the end of the period.',
  renewed: 'Your subscription renews again.',
  ended: 'Your subscription has ended.',
};

export interface StripeCheckoutOptions {
  /** stripe-mock's base URL: every request this server does not answer itself goes there. */
  upstream: string;
  /** The service's webhook signing secret (whsec_…). */
  webhookSecret: string;
  port?: number;
  host?: string;
  /** A JSON file keeping sessions, subscriptions and invoices across restarts (`npm start`); unset: memory only. */
  stateFile?: string;
}

interface PendingEvent {
  id: string;
  type: string;
  created: number;
  object: unknown;
  delivered: boolean;
}

export interface CheckoutRecord {
  id: string;
  mode: string;
  customer: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  /** subscription_data[metadata]: becomes the subscription's metadata. */
  subscriptionMetadata: Record<string, string>;
  price: string | null;
  quantity: number;
  successUrl: string | null;
  cancelUrl: string | null;
  created: number;
  status: 'open' | 'complete';
  paymentIntent: string | null;
  subscription: string | null;
  invoice: string | null;
  amountTotal: number | null;
  events: PendingEvent[];
}

export interface PortalRecord {
  id: string;
  customer: string;
  returnUrl: string | null;
  created: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Stripe objects as JSON, built and read here
type StripeObject = Record<string, any>;

interface State {
  checkouts: CheckoutRecord[];
  portals: PortalRecord[];
  subscriptions: StripeObject[];
  invoices: StripeObject[];
}

export interface StripeCheckout {
  url: string;
  checkouts: Map<string, CheckoutRecord>;
  portals: Map<string, PortalRecord>;
  /** Subscriptions created by a Pay here, as Stripe objects, by id. */
  subscriptions: Map<string, StripeObject>;
  stop(): Promise<void>;
}

interface Catalogue {
  plans: { id: string; name: string; tokensPerMonth: number | null; priceUsd: number | null; priceId: string | null }[];
  tokenPacks: { priceId: string; tokens: number; priceUsd: number }[];
}

interface Item {
  title: string;
  price: string;
  detail: string;
  amountCents: number | null;
}

const rid = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const now = () => Math.floor(Date.now() / 1000);
const esc = (v: unknown) =>
  String(v ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
const usd = (n: number) => `${n.toFixed(2)} USD`;
const day = (s: number | null | undefined) => (s ? new Date(s * 1000).toISOString().slice(0, 10) : 'unknown');

/** The service that created a session: the origin of a URL it gave (it accepts only URLs on its own origin). */
function serviceOrigin(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Stripe's form encoding: `prefix[key]=v` fields as an object. */
function nested(form: URLSearchParams, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[([^\\]]+)\\]$`);
  for (const [k, v] of form) {
    const m = re.exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}

class DeliveryError extends Error {}

export async function startStripeCheckout(opts: StripeCheckoutOptions): Promise<StripeCheckout> {
  const upstream = opts.upstream.replace(/\/+$/, '');
  const checkouts = new Map<string, CheckoutRecord>();
  const portals = new Map<string, PortalRecord>();
  const subscriptions = new Map<string, StripeObject>();
  const invoices = new Map<string, StripeObject>();
  /** Idempotency-Key → the first answer (what Stripe keeps for 24 h); this server's own create calls only. */
  const idempotent = new Map<string, { status: number; body: string }>();
  const catalogues = new Map<string, { at: number; value: Catalogue }>();
  let self = '';

  if (opts.stateFile && existsSync(opts.stateFile)) {
    const s = JSON.parse(readFileSync(opts.stateFile, 'utf8')) as State;
    for (const c of s.checkouts) checkouts.set(c.id, c);
    for (const p of s.portals) portals.set(p.id, p);
    for (const x of s.subscriptions) subscriptions.set(x.id, x);
    for (const x of s.invoices) invoices.set(x.id, x);
  }
  const save = () => {
    if (!opts.stateFile) return;
    const state: State = {
      checkouts: [...checkouts.values()],
      portals: [...portals.values()],
      subscriptions: [...subscriptions.values()],
      invoices: [...invoices.values()],
    };
    writeFileSync(`${opts.stateFile}.tmp`, JSON.stringify(state), { mode: 0o600 });
    renameSync(`${opts.stateFile}.tmp`, opts.stateFile);
  };

  /** The service's plans and token packs (names, prices, tokens), read from its public plan list. */
  async function catalogue(origin: string | null): Promise<Catalogue | null> {
    if (!origin) return null;
    const cached = catalogues.get(origin);
    if (cached && Date.now() - cached.at < 30_000) return cached.value;
    try {
      const res = await fetch(`${origin}/api/payments/plans`, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) return null;
      const value = (await res.json()) as Catalogue;
      catalogues.set(origin, { at: Date.now(), value });
      return value;
    } catch {
      return null;
    }
  }

  async function itemFor(price: string | null, origin: string | null): Promise<Item> {
    const cat = await catalogue(origin);
    const plan = cat?.plans.find((p) => p.priceId && p.priceId === price);
    if (plan)
      return {
        title: `${plan.name} plan`,
        price: plan.priceUsd == null ? 'price by arrangement' : `${usd(plan.priceUsd)} a month`,
        detail: plan.tokensPerMonth == null ? 'a custom allowance' : `${plan.tokensPerMonth} tokens a month`,
        amountCents: plan.priceUsd == null ? null : Math.round(plan.priceUsd * 100),
      };
    const pack = cat?.tokenPacks.find((p) => p.priceId === price);
    if (pack)
      return {
        title: `${pack.tokens} tokens`,
        price: `${usd(pack.priceUsd)}, once`,
        detail: `${pack.tokens} tokens added to your balance; they do not expire`,
        amountCents: Math.round(pack.priceUsd * 100),
      };
    return {
      title: `Price ${price ?? '(none)'}`,
      price: 'unknown price',
      detail: 'not in the service catalogue',
      amountCents: null,
    };
  }

  /** The session as Stripe answers it: stripe-mock's object (`base`) with this session's real state over it. */
  const sessionObject = (c: CheckoutRecord, base: StripeObject = {}): StripeObject => ({
    ...base,
    id: c.id,
    object: 'checkout.session',
    livemode: false,
    created: c.created,
    expires_at: c.created + 86_400,
    url: c.status === 'open' ? `${self}/checkout/${c.id}` : null,
    mode: c.mode,
    status: c.status,
    payment_status: c.status === 'complete' ? 'paid' : 'unpaid',
    customer: c.customer,
    client_reference_id: c.clientReferenceId,
    metadata: c.metadata,
    success_url: c.successUrl,
    cancel_url: c.cancelUrl,
    payment_intent: c.paymentIntent,
    subscription: c.subscription,
    invoice: c.invoice,
    currency: 'usd',
    amount_subtotal: c.amountTotal,
    amount_total: c.amountTotal,
  });

  /** The session's one line item, as Stripe lists it (GET /v1/checkout/sessions/<id>/line_items). */
  const lineItem = (c: CheckoutRecord): StripeObject => ({
    id: `li_${c.id.slice(-16)}`,
    object: 'item',
    quantity: c.quantity,
    currency: 'usd',
    amount_subtotal: c.amountTotal ?? 0,
    amount_total: c.amountTotal ?? 0,
    description: null,
    price: { id: c.price, object: 'price', type: c.mode === 'subscription' ? 'recurring' : 'one_time' },
  });

  // ---- Stripe API ----

  async function forward(req: IncomingMessage, body: Buffer) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'content-length', 'connection', 'accept-encoding'].includes(k))
        headers[k] = v;
    const res = await fetch(`${upstream}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  async function api(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const u = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const json = (status: number, value: unknown, requestId = rid('req')) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'request-id': requestId })
        .end(typeof value === 'string' ? value : JSON.stringify(value));
    const notFound = (what: string, id: string) =>
      json(404, {
        error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'` },
      });

    const creates: Record<string, (form: URLSearchParams, base: StripeObject) => Promise<StripeObject>> = {
      '/v1/checkout/sessions': createCheckout,
      '/v1/billing_portal/sessions': async (form, base) => createPortal(form, base),
    };
    const create = method === 'POST' ? creates[u.pathname] : undefined;
    if (create) {
      const key = req.headers['idempotency-key'];
      const cacheKey = typeof key === 'string' ? `${u.pathname} ${key}` : null;
      const seen = cacheKey ? idempotent.get(cacheKey) : undefined;
      if (seen) return json(seen.status, seen.body);
      const up = await forward(req, body); // stripe-mock validates the parameters against Stripe's spec
      let status = up.status;
      let text = up.text;
      if (up.status === 200) {
        const made = await create(new URLSearchParams(body.toString('utf8')), JSON.parse(up.text) as StripeObject);
        status = 200;
        text = JSON.stringify(made);
      }
      if (cacheKey && status < 500) idempotent.set(cacheKey, { status, body: text });
      return json(status, text, up.headers.get('request-id') ?? rid('req'));
    }

    let m: RegExpExecArray | null;
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(u.pathname)) && checkouts.has(m[1]!)) {
      const up = await forward(req, body);
      const base = up.status === 200 ? (JSON.parse(up.text) as StripeObject) : {};
      const c = checkouts.get(m[1]!)!;
      const out = sessionObject(c, base);
      if ([...u.searchParams].some(([k, v]) => k.startsWith('expand') && v === 'line_items'))
        out.line_items = {
          object: 'list',
          url: `${u.pathname}/line_items`,
          has_more: false,
          data: c.price ? [lineItem(c)] : [],
        };
      return json(200, out);
    }
    if (
      method === 'GET' &&
      (m = /^\/v1\/checkout\/sessions\/([^/]+)\/line_items$/.exec(u.pathname)) &&
      checkouts.has(m[1]!)
    ) {
      const c = checkouts.get(m[1]!)!;
      return json(200, {
        object: 'list',
        url: u.pathname,
        has_more: false,
        data: c.price ? [lineItem(c)] : [],
      });
    }
    if (method === 'GET' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(u.pathname))) {
      const sub = subscriptions.get(m[1]!);
      if (sub) {
        const expand = [...u.searchParams].filter(([k]) => k.startsWith('expand')).map(([, v]) => v);
        const out = { ...sub };
        if (expand.includes('latest_invoice') && typeof sub.latest_invoice === 'string')
          out.latest_invoice = invoices.get(sub.latest_invoice) ?? sub.latest_invoice;
        return json(200, out);
      }
      if (m[1]!.startsWith('sub_local_')) return notFound('subscription', m[1]!);
    }
    if (method === 'GET' && (m = /^\/v1\/invoices\/([^/]+)$/.exec(u.pathname)) && invoices.has(m[1]!))
      return json(200, invoices.get(m[1]!));
    if (method === 'GET' && u.pathname === '/v1/invoice_payments') {
      const inv = invoices.get(u.searchParams.get('invoice') ?? '');
      if (inv) {
        const status = u.searchParams.get('status');
        const data = ((inv.payments?.data ?? []) as StripeObject[]).filter((p) => !status || p.status === status);
        return json(200, { object: 'list', url: '/v1/invoice_payments', has_more: false, data });
      }
    }
    if (method === 'GET' && u.pathname === '/v1/invoices') {
      const sub = u.searchParams.get('subscription');
      if (sub && subscriptions.has(sub)) {
        const data = [...invoices.values()]
          .filter((i) => i.parent?.subscription_details?.subscription === sub)
          .sort((a, b) => b.created - a.created);
        return json(200, { object: 'list', url: '/v1/invoices', has_more: false, data });
      }
    }

    const up = await forward(req, body);
    res.writeHead(up.status, {
      'content-type': up.headers.get('content-type') ?? 'application/json',
      'request-id': up.headers.get('request-id') ?? rid('req'),
      ...(up.headers.get('stripe-should-retry')
        ? { 'stripe-should-retry': up.headers.get('stripe-should-retry')! }
        : {}),
    });
    res.end(up.text);
  }

  async function createCheckout(form: URLSearchParams, base: StripeObject): Promise<StripeObject> {
    const successUrl = form.get('success_url');
    const rec: CheckoutRecord = {
      id: rid('cs_test'),
      mode: form.get('mode') ?? 'payment',
      customer: form.get('customer'),
      clientReferenceId: form.get('client_reference_id'),
      metadata: nested(form, 'metadata'),
      subscriptionMetadata: nested(form, 'subscription_data[metadata]'),
      price: form.get('line_items[0][price]'),
      quantity: Number(form.get('line_items[0][quantity]') ?? '1') || 1,
      successUrl,
      cancelUrl: form.get('cancel_url'),
      created: now(),
      status: 'open',
      paymentIntent: null,
      subscription: null,
      invoice: null,
      amountTotal: null,
      events: [],
    };
    const item = await itemFor(rec.price, serviceOrigin(successUrl));
    rec.amountTotal = item.amountCents === null ? null : item.amountCents * rec.quantity;
    checkouts.set(rec.id, rec);
    save();
    return sessionObject(rec, base);
  }

  function createPortal(form: URLSearchParams, base: StripeObject): StripeObject {
    const rec: PortalRecord = {
      id: rid('bps_local'),
      customer: form.get('customer') ?? '',
      returnUrl: form.get('return_url'),
      created: now(),
    };
    portals.set(rec.id, rec);
    save();
    return {
      ...base,
      id: rec.id,
      object: 'billing_portal.session',
      livemode: false,
      created: rec.created,
      customer: rec.customer,
      return_url: rec.returnUrl,
      url: `${self}/portal/${rec.id}`,
    };
  }

  // ---- events ----

  async function deliver(origin: string | null, events: PendingEvent[]): Promise<void> {
    if (!origin) throw new DeliveryError('the session names no URL of the service, so there is nowhere to send events');
    for (const e of events) {
      if (e.delivered) continue;
      const signed = signedEvent(opts.webhookSecret, e.type, e.object, { id: e.id, created: e.created });
      let res: Response;
      try {
        res = await postEvent(`${origin}/api/payments/webhook`, signed);
      } catch (err) {
        throw new DeliveryError(`${e.type} could not be delivered to ${origin}: ${(err as Error).message}`);
      }
      if (!res.ok)
        throw new DeliveryError(
          `${e.type} was answered ${res.status} by ${origin}: ${(await res.text()).slice(0, 500)}`,
        );
      e.delivered = true;
      save();
    }
  }

  const event = (type: string, object: unknown): PendingEvent => ({
    id: rid('evt_local'),
    type,
    created: now(),
    object: structuredClone(object),
    delivered: false,
  });

  /** Pay: the session becomes complete (with its subscription and first invoice) and its events are prepared once. */
  function complete(c: CheckoutRecord) {
    if (c.status === 'complete') return;
    const t = now();
    const customer = c.customer ?? rid('cus_local');
    c.customer = customer;
    if (c.mode === 'subscription' && c.price) {
      const subId = rid('sub_local');
      const invoiceId = rid('in_local');
      const period = { start: t, end: oneMonthAfter(t) };
      const userId = c.subscriptionMetadata.userId ?? c.clientReferenceId ?? '';
      const sub: StripeObject = {
        ...subscriptionObject({ userId, id: subId, price: c.price, period, customer }),
        metadata: c.subscriptionMetadata,
        created: t,
        start_date: t,
        livemode: false,
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        collection_method: 'charge_automatically',
        latest_invoice: invoiceId,
      };
      sub.items.data[0].quantity = c.quantity;
      sub.items.data[0].subscription = subId;
      const inv: StripeObject = {
        ...paidInvoice({
          userId,
          subscription: subId,
          price: c.price,
          id: invoiceId,
          period,
          billingReason: 'subscription_create',
          customer,
        }),
        created: t,
        livemode: false,
        currency: 'usd',
        amount_due: c.amountTotal ?? 0,
        amount_paid: c.amountTotal ?? 0,
        status_transitions: { paid_at: t },
      };
      inv.parent.subscription_details.metadata = c.subscriptionMetadata;
      // what paid it (Stripe lists it under GET /v1/invoice_payments?invoice=<id>): a refund names its payment_intent
      inv.payments = {
        object: 'list',
        has_more: false,
        data: [
          {
            id: rid('inpay_local'),
            object: 'invoice_payment',
            invoice: invoiceId,
            is_default: true,
            livemode: false,
            currency: 'usd',
            amount_requested: c.amountTotal ?? 0,
            amount_paid: c.amountTotal ?? 0,
            status: 'paid',
            created: t,
            payment: { type: 'payment_intent', payment_intent: rid('pi_local') },
            status_transitions: { canceled_at: null, paid_at: t },
          },
        ],
      };
      subscriptions.set(subId, sub);
      invoices.set(invoiceId, inv);
      c.subscription = subId;
      c.invoice = invoiceId;
      c.status = 'complete';
      c.events = [
        event('checkout.session.completed', sessionObject(c)),
        event('customer.subscription.created', sub),
        event('invoice.paid', inv),
      ];
    } else {
      c.paymentIntent = rid('pi_local');
      c.status = 'complete';
      c.events = [event('checkout.session.completed', sessionObject(c))];
    }
    save();
  }

  // ---- pages ----

  const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.standin{background:#fff3bf;border:2px solid #8a6d00;padding:.5rem 1rem;border-radius:6px}
.card{border:1px solid #bbb;border-radius:8px;padding:1rem;margin:1rem 0}
button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #1d3f91;background:#fff;color:#1d3f91;cursor:pointer}
button.primary{background:#1d3f91;color:#fff}
form{display:inline-block;margin:.25rem .5rem .25rem 0}
.error{background:#fde2e1;border:2px solid #a4161a;padding:.5rem 1rem;border-radius:6px}
.done{background:#e3f5e1;border:1px solid #2b6a1f;padding:.5rem 1rem;border-radius:6px}
a{color:#1d3f91}`;

  const page = (res: ServerResponse, status: number, title: string, html: string) =>
    res
      .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><link rel="icon" href="data:,">` +
          `<title>${esc(title)} · ${LABEL}</title><style>${STYLE}</style></head><body>` +
          `<p class="standin" role="note"><strong>${LABEL}.</strong> This page stands in for Stripe's hosted pages on ` +
          `this machine: no card is asked for and nothing is charged.</p>${html}</body></html>`,
      );
  const redirect = (res: ServerResponse, to: string) => res.writeHead(303, { location: to }).end();

  async function checkoutPage(res: ServerResponse, c: CheckoutRecord, error?: string) {
    const item = await itemFor(c.price, serviceOrigin(c.successUrl));
    const what = c.mode === 'subscription' ? 'Subscribe' : 'Pay once';
    const paid = c.status === 'complete' && c.events.every((e) => e.delivered);
    page(
      res,
      error ? 502 : 200,
      'Checkout',
      `<main><h1>Checkout</h1>
<section class="card" aria-labelledby="item-h"><h2 id="item-h">${esc(item.title)}</h2>
<p><strong>${esc(item.price)}</strong>${c.quantity > 1 ? ` × ${c.quantity}` : ''}</p><p>${esc(item.detail)}</p>
<p>${esc(what)} · customer ${esc(c.customer ?? 'new')} · session ${esc(c.id)}</p></section>
${error ? `<div class="error" role="alert"><p>The service did not accept the payment's events: ${esc(error)}</p><p>Pay again to resend them (the same events, as Stripe retries).</p></div>` : ''}
${
  paid
    ? `<p class="done" role="status">This checkout is paid.</p>${c.successUrl ? `<p><a href="${esc(successTarget(c))}">Continue</a></p>` : ''}`
    : `<form method="post" action="/checkout/${esc(c.id)}/pay"><button type="submit" class="primary">Pay</button></form>
${c.cancelUrl ? `<a href="${esc(c.cancelUrl)}">Cancel</a>` : ''}`
}
<p><small>Pay sends the service ${c.mode === 'subscription' ? 'checkout.session.completed, customer.subscription.created and invoice.paid' : 'checkout.session.completed'}, signed with its webhook secret, then returns to it.</small></p></main>`,
    );
  }

  const successTarget = (c: CheckoutRecord) => (c.successUrl ?? '').replaceAll('{CHECKOUT_SESSION_ID}', c.id);

  async function portalPage(res: ServerResponse, p: PortalRecord, note?: string, error?: string) {
    const origin = serviceOrigin(p.returnUrl);
    const cat = await catalogue(origin);
    const subs = [...subscriptions.values()]
      .filter((s) => s.customer === p.customer)
      .sort((a, b) => b.created - a.created);
    const live = subs.filter((s) => s.status !== 'canceled');
    const ended = subs.filter((s) => s.status === 'canceled');
    const section = async (s: StripeObject) => {
      const item = s.items.data[0];
      const info = await itemFor(item.price.id, origin);
      const end = item.current_period_end as number;
      const form = (action: string, label: string, hidden: Record<string, string> = {}, primary = false) =>
        `<form method="post" action="/portal/${esc(p.id)}/${action}"><input type="hidden" name="subscription" value="${esc(s.id)}">` +
        Object.entries(hidden)
          .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
          .join('') +
        `<button type="submit"${primary ? ' class="primary"' : ''}>${esc(label)}</button></form>`;
      const others = (cat?.plans ?? []).filter((pl) => pl.priceId && pl.priceId !== item.price.id);
      return `<section class="card" aria-labelledby="sub-${esc(s.id)}"><h2 id="sub-${esc(s.id)}">${esc(info.title)}</h2>
<p>${esc(info.price)} · ${esc(info.detail)}</p>
<p>Status: <strong>${esc(s.status)}</strong>${s.cancel_at_period_end ? ` · cancels on ${day(end)}` : s.status === 'canceled' ? ` · ended ${day(s.ended_at)}` : ` · renews on ${day(end)}`}</p>
${
  s.status === 'canceled'
    ? ''
    : `<h3>Switch plan</h3><div>${others.length ? others.map((pl) => form('update', `Switch to ${pl.name}`, { price: pl.priceId! })).join('') : 'No other plan to switch to.'}</div>
<h3>Cancel</h3><div>${
        s.cancel_at_period_end
          ? form('renew', 'Renew subscription')
          : `${form('cancel', 'Cancel subscription')} <small>at the end of the period (${day(end)})</small>`
      }</div><div>${form('cancel-now', 'Cancel immediately')} <small>ends it now</small></div>`
}
</section>`;
    };
    const sections: string[] = [];
    for (const s of live) sections.push(await section(s));
    for (const s of ended.slice(0, 3)) sections.push(await section(s));
    page(
      res,
      error ? 502 : 200,
      'Billing portal',
      `<main><h1>Billing portal</h1><p>Customer ${esc(p.customer)}</p>
<div role="status" aria-live="polite">${note ? `<p class="done">${esc(note)}</p>` : ''}</div>
${error ? `<div class="error" role="alert"><p>The service did not accept the event: ${esc(error)}</p></div>` : ''}
${sections.length ? sections.join('\n') : '<p>No subscription. Subscribe to a plan from the service first.</p>'}
${p.returnUrl ? `<p><a href="${esc(p.returnUrl)}">Return to the service</a></p>` : ''}
<p><small>Changes here send the service customer.subscription.updated (plan, cancel at the period end, renew) or customer.subscription.deleted (cancel immediately), signed with its webhook secret.</small></p></main>`,
    );
  }

  async function portalAction(res: ServerResponse, p: PortalRecord, action: string, form: URLSearchParams) {
    const sub = subscriptions.get(form.get('subscription') ?? '');
    if (!sub || sub.customer !== p.customer) return page(res, 404, 'Not found', '<h1>No such subscription</h1>');
    if (sub.status === 'canceled') return redirect(res, `/portal/${p.id}`);
    const item = sub.items.data[0];
    let type = 'customer.subscription.updated';
    let done: keyof typeof NOTES;
    if (action === 'update') {
      const price = form.get('price') ?? '';
      const plan = (await catalogue(serviceOrigin(p.returnUrl)))?.plans.find((pl) => pl.priceId === price);
      if (!plan) return page(res, 400, 'Bad request', '<h1>That price is not a plan of the service</h1>');
      item.price = { ...item.price, id: price };
      done = 'switched';
    } else if (action === 'cancel') {
      sub.cancel_at_period_end = true;
      sub.cancel_at = item.current_period_end;
      sub.canceled_at = now();
      done = 'cancelled';
    } else if (action === 'renew') {
      sub.cancel_at_period_end = false;
      sub.cancel_at = null;
      sub.canceled_at = null;
      done = 'renewed';
    } else if (action === 'cancel-now') {
      type = 'customer.subscription.deleted';
      sub.status = 'canceled';
      sub.canceled_at = now();
      sub.ended_at = now();
      done = 'ended';
    } else return page(res, 404, 'Not found', '<h1>Not found</h1>');
    save();
    const events = [event(type, sub)];
    try {
      await deliver(serviceOrigin(p.returnUrl), events);
    } catch (err) {
      if (!(err instanceof DeliveryError)) throw err;
      return portalPage(res, p, undefined, err.message);
    }
    redirect(res, `/portal/${p.id}?done=${done}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const u = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    if (u.pathname.startsWith('/v1/')) return api(req, res, body);
    let m: RegExpExecArray | null;
    if ((m = /^\/checkout\/([\w]+)(\/pay)?$/.exec(u.pathname))) {
      const c = checkouts.get(m[1]!);
      if (!c) return page(res, 404, 'Not found', '<h1>No such checkout session</h1>');
      if (method === 'GET' && !m[2]) return checkoutPage(res, c);
      if (method === 'POST' && m[2]) {
        complete(c);
        try {
          await deliver(serviceOrigin(c.successUrl), c.events);
        } catch (err) {
          if (!(err instanceof DeliveryError)) throw err;
          return checkoutPage(res, c, err.message);
        }
        return c.successUrl ? redirect(res, successTarget(c)) : checkoutPage(res, c);
      }
    }
    if ((m = /^\/portal\/([\w]+)(?:\/([a-z-]+))?$/.exec(u.pathname))) {
      const p = portals.get(m[1]!);
      if (!p) return page(res, 404, 'Not found', '<h1>No such portal session</h1>');
      if (method === 'GET' && !m[2]) return portalPage(res, p, NOTES[u.searchParams.get('done') as keyof typeof NOTES]);
      if (method === 'POST' && m[2]) return portalAction(res, p, m[2], new URLSearchParams(body.toString('utf8')));
    }
    if (method === 'GET' && u.pathname === '/')
      return page(
        res,
        200,
        'Stripe',
        `<main><h1>Local checkout and billing portal</h1><p>Stripe API requests are forwarded to stripe-mock at ${esc(upstream)}.</p>
<p>${checkouts.size} checkout sessions, ${subscriptions.size} subscriptions, ${portals.size} portal sessions.</p></main>`,
      );
    page(res, 404, 'Not found', '<h1>Not found</h1>');
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: `stand-in: ${(err as Error).message}` } }));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  self = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    checkouts,
    portals,
    subscriptions,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
