// Fetching URLs that users give us (analysis images, designs to composite, webhook receivers) without letting them
// reach our own network. For every hop, redirects included:
//  - only http and https, no credentials in the URL;
//  - the host name is resolved here, and every address it resolves to must be public (address-policy.ts) unless
//    ALLOW_PRIVATE_URLS is set;
//  - the connection goes to the addresses that were vetted, through a fixed `lookup` on the request: the socket never
//    resolves the name again, so DNS cannot answer differently between check and use (DNS rebinding);
//  - at most `maxRedirects` redirects, each a new hop with the same checks;
//  - one deadline for the whole exchange (DNS, connect, redirects, body) and a byte limit enforced while streaming.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { classifyAddress, isBlockedHostname, type AddressCategory } from './address-policy';
import { Gate, GateFullError } from '../gate';
import { orTimeout } from '../wait';
import { UrlFetchError } from './errors';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface GuardedFetchOptions {
  /** Largest body accepted; larger is refused as soon as it is known (Content-Length) or seen. */
  maxBytes: number;
  /** Deadline for the whole exchange, redirects included. */
  timeoutMs: number;
  /** Redirects followed for GET/HEAD (other methods return the 3xx as is). Default 3. */
  maxRedirects?: number;
  /** Skip the address checks (config.allowPrivateUrls): for local development and tests only. */
  allowPrivate?: boolean;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: Buffer | string;
  /**
   * Answer as soon as the status line and headers arrive, and close the connection without reading the body
   * (outbound webhooks: the status decides, a slow or huge body must not). `body` is then empty.
   */
  discardBody?: boolean;
  /** Which statuses are a success; anything else throws UrlFetchError('http_status'). Default 2xx. */
  acceptStatus?: (status: number) => boolean;
  signal?: AbortSignal;
  /** DNS resolution; injectable for tests. Default: resolvePublicName (c-ares, bounded), or with allowPrivate the
   * system lookup (getaddrinfo, /etc/hosts). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Address policy; injectable for tests. Default: public addresses only (or all, with allowPrivate). */
  isAllowed?: (address: string) => boolean;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
  redirects: string[];
}

const DEFAULT_REDIRECTS = 3;

/** Ports a user URL may name (unless ALLOW_PRIVATE_URLS): the web's own; anything else probes internal services. */
export const PUBLIC_PORTS: ReadonlySet<number> = new Set([80, 443]);
const USER_AGENT = 'apparel-mockup-service/1 (+fetching a URL supplied to the API)';

/**
 * DNS for user URLs: c-ares (dns.promises.Resolver) rather than getaddrinfo, which runs on the libuv pool shared
 * with sharp, file reads and scrypt and cannot be abandoned: a deadline would leave the thread stuck on a name
 * server that never answers. Each query has DNS_TIMEOUT_MS per try and DNS_TRIES tries; at most
 * DNS_MAX_CONCURRENT lookups run at once per process and DNS_MAX_WAITING wait (beyond, the lookup fails at once).
 */
export const DNS_TIMEOUT_MS = 2000;
export const DNS_TRIES = 2;
export const DNS_MAX_CONCURRENT = 16;
export const DNS_MAX_WAITING = 256;
/** The resolver user URLs go through (exported so tests can point it at their own name server). */
export const dnsResolver = new dns.promises.Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
const dnsGate = new Gate(DNS_MAX_CONCURRENT, DNS_MAX_WAITING);

export async function resolvePublicName(hostname: string): Promise<ResolvedAddress[]> {
  return dnsGate.run(async () => {
    const [v4, v6] = await Promise.allSettled([dnsResolver.resolve4(hostname), dnsResolver.resolve6(hostname)]);
    const out: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (out.length === 0 && v4.status === 'rejected') throw v4.reason;
    return out;
  });
}

/** Development and tests (ALLOW_PRIVATE_URLS): names such as localhost come from /etc/hosts, which c-ares does not read. */
const systemLookup = async (hostname: string): Promise<ResolvedAddress[]> => {
  const all = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

const describe = (category: AddressCategory) =>
  ({
    loopback: 'a loopback address',
    private: 'a private network address',
    'link-local': 'a link-local address',
    'cloud-metadata': 'a cloud metadata service address',
    cgnat: 'a carrier-grade NAT address',
    'unique-local': 'a unique-local IPv6 address',
    multicast: 'a multicast address',
    unspecified: 'an unspecified address',
    reserved: 'a reserved address',
    documentation: 'a documentation-only address',
    benchmarking: 'a benchmarking address',
    invalid: 'an invalid address',
    public: 'a public address',
  })[category];

/** Fetches a user-supplied URL under the rules above. Throws UrlFetchError for every refusal or failure. */
export async function guardedFetch(rawUrl: string, opts: GuardedFetchOptions): Promise<GuardedResponse> {
  const deadline = Date.now() + opts.timeoutMs;
  const method = opts.method ?? 'GET';
  const follow = method === 'GET' || method === 'HEAD';
  const maxRedirects = opts.maxRedirects ?? DEFAULT_REDIRECTS;
  const redirects: string[] = [];
  let url = parseUrl(rawUrl);
  for (;;) {
    const addresses = await vet(url, opts, deadline);
    const res = await request(url, addresses, opts, method, deadline, follow);
    if (follow && res.redirect) {
      if (redirects.length >= maxRedirects) {
        throw new UrlFetchError('too_many_redirects', `The URL redirected more than ${maxRedirects} times`, {
          redirects: [...redirects, res.redirect],
        });
      }
      let next: URL;
      try {
        next = new URL(res.redirect, url);
      } catch {
        throw new UrlFetchError('bad_redirect', 'The URL redirected to an invalid location');
      }
      redirects.push(next.href);
      url = parseUrl(next.href);
      continue;
    }
    const accept = opts.acceptStatus ?? ((s: number) => s >= 200 && s < 300);
    if (!accept(res.status)) {
      throw new UrlFetchError('http_status', `The URL answered with HTTP ${res.status}`, { status: res.status });
    }
    return { status: res.status, headers: res.headers, body: res.body, url: url.href, redirects };
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlFetchError('invalid_url', 'Not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlFetchError(
      'unsupported_protocol',
      `Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`,
    );
  }
  if (url.username || url.password)
    throw new UrlFetchError('credentials_in_url', 'URLs with a user name or password are not accepted');
  if (!url.hostname) throw new UrlFetchError('invalid_url', 'The URL has no host');
  return url;
}

const remaining = (deadline: number) => Math.max(0, deadline - Date.now());

function timeoutError(): UrlFetchError {
  return new UrlFetchError('timeout', 'The URL did not answer in time');
}

/** Resolves the host and checks every address; returns the addresses the connection may use. */
async function vet(url: URL, opts: GuardedFetchOptions, deadline: number): Promise<ResolvedAddress[]> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const allowed = opts.isAllowed ?? ((a: string) => opts.allowPrivate === true || classifyAddress(a) === 'public');
  // A literal address is the caller's own input and may be named; what a name resolves to is not told: it would
  // map the service's internal network for the caller.
  const refuse = (address: string) =>
    host === address
      ? new UrlFetchError(
          'blocked_address',
          `The URL's host is ${describe(classifyAddress(address))} (${address}), which the service does not fetch`,
          { host, category: classifyAddress(address) },
        )
      : new UrlFetchError(
          'blocked_address',
          `The URL's host (${host}) resolves to an address that is not public, which the service does not fetch`,
          { host },
        );
  // Only the web's ports: anything else would let a URL probe internal services on a public host. Checked after the
  // address, so a refused address is named as such whatever its port.
  const checkPort = () => {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (!opts.allowPrivate && !opts.isAllowed && !PUBLIC_PORTS.has(port)) {
      throw new UrlFetchError('blocked_address', `The URL's port ${port} is not fetched: only ports 80 and 443 are`, {
        host,
        port,
      });
    }
  };
  const literal = net.isIP(host);
  if (literal) {
    if (!allowed(host)) throw refuse(host);
    checkPort();
    return [{ address: host, family: literal === 6 ? 6 : 4 }];
  }
  if (!opts.allowPrivate && !opts.isAllowed && isBlockedHostname(host)) {
    throw new UrlFetchError('blocked_address', `The host ${host} is internal and is not fetched`, { host });
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await orTimeout(
      remaining(deadline),
      (opts.resolve ?? (opts.allowPrivate ? systemLookup : resolvePublicName))(host),
      timeoutError,
    );
  } catch (err) {
    if (err instanceof UrlFetchError) throw err;
    if (err instanceof GateFullError) {
      throw new UrlFetchError('dns_failed', `The host ${host} could not be resolved now: too many lookups at once`, {
        host,
      });
    }
    throw new UrlFetchError('dns_failed', `The host ${host} could not be resolved`, {
      host,
      code: (err as NodeJS.ErrnoException).code,
    });
  }
  if (addresses.length === 0) throw new UrlFetchError('dns_failed', `The host ${host} has no addresses`, { host });
  // Every address must pass: a name that resolves to one public and one private address is refused outright,
  // rather than hoping the connection picks the public one.
  for (const a of addresses) if (!allowed(a.address)) throw refuse(a.address);
  checkPort();
  return addresses;
}

interface HopResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  redirect?: string;
}

function request(
  url: URL,
  addresses: ResolvedAddress[],
  opts: GuardedFetchOptions,
  method: string,
  deadline: number,
  follow: boolean,
): Promise<HopResult> {
  // The socket connects to the vetted addresses only: this lookup ignores the name it is given.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const family = typeof options === 'object' && options ? options.family : undefined;
    const usable = addresses.filter((a) => !family || a.family === family);
    const list = usable.length ? usable : addresses;
    if (typeof options === 'object' && options?.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
  const isHttps = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*', ...opts.headers };
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));

  return new Promise<HopResult>((resolve, reject) => {
    let settled = false;
    const done = (err: Error | null, value?: HopResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(value!);
    };
    const req = (isHttps ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || (isHttps ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      lookup,
      // No connection reuse: a pooled socket might have been opened for another request's vetted address.
      agent: false,
      // TLS certificate checks use the real name, never the IP we connect to.
      ...(isHttps && !net.isIP(host) ? { servername: host } : {}),
    });
    const timer = setTimeout(() => {
      req.destroy(timeoutError());
    }, remaining(deadline));
    const onAbort = () => req.destroy(new UrlFetchError('network_error', 'The request was aborted'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err) => {
      if (err instanceof UrlFetchError) return done(err);
      const code = (err as NodeJS.ErrnoException).code;
      done(new UrlFetchError('network_error', `The URL could not be fetched (${code ?? err.message})`, { code }));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (follow && status >= 300 && status < 400 && status !== 304 && location) {
        res.resume();
        req.destroy();
        return done(null, { status, headers: res.headers, body: Buffer.alloc(0), redirect: location });
      }
      if (opts.discardBody) {
        done(null, { status, headers: res.headers, body: Buffer.alloc(0) });
        res.destroy();
        req.destroy();
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        req.destroy();
        return done(tooLarge(opts.maxBytes));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) {
          req.destroy();
          return done(tooLarge(opts.maxBytes));
        }
        chunks.push(chunk);
      });
      res.on('end', () => done(null, { status, headers: res.headers, body: Buffer.concat(chunks, size) }));
      res.on('error', (err) => req.emit('error', err));
      res.on('aborted', () => req.emit('error', Object.assign(new Error('response aborted'), { code: 'ECONNRESET' })));
    });
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

const tooLarge = (max: number) =>
  new UrlFetchError(
    'too_large',
    `The file at the URL is larger than the ${Math.round((max / (1024 * 1024)) * 10) / 10} MB limit`,
    { maxBytes: max },
  );
