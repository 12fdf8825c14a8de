// Which IP addresses a user-supplied URL may reach. Everything that is not ordinary public unicast is refused:
// private and loopback networks, link-local (where cloud metadata services live), CGNAT, unique-local IPv6,
// multicast, unspecified, documentation and benchmarking ranges, and IPv6 forms that embed a refused IPv4 address
// (IPv4-mapped, NAT64, 6to4). Written out by hand so each range is visible and tested.
import net from 'node:net';

export type AddressCategory =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'cloud-metadata'
  | 'invalid';

const V4_RANGES: [cidr: string, category: AddressCategory][] = [
  ['0.0.0.0/8', 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'], // also Alibaba Cloud's metadata address 100.100.100.200
  ['127.0.0.0/8', 'loopback'],
  ['169.254.169.254/32', 'cloud-metadata'], // AWS, GCP, Azure, OpenStack, DigitalOcean
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (includes 192.0.0.192, Oracle Cloud metadata)
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes 255.255.255.255 broadcast
];

const V6_RANGES: [cidr: string, category: AddressCategory][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fd00:ec2::254/128', 'cloud-metadata'], // AWS IMDS over IPv6
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'reserved'], // deprecated site-local
  ['ff00::/8', 'multicast'],
  ['100::/64', 'reserved'], // discard-only
  ['2001:db8::/32', 'documentation'],
  ['2001::/32', 'reserved'], // Teredo: tunnels to arbitrary IPv4 hosts
  ['2001:10::/28', 'reserved'], // ORCHID
  ['2001:20::/28', 'reserved'], // ORCHIDv2
  ['64:ff9b:1::/48', 'reserved'], // local-use NAT64
];

type Parsed = { family: 4; value: number } | { family: 6; value: bigint };

function parseV4(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let v = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    v = v * 256 + n;
  }
  return v;
}

function parseV6(input: string): bigint | null {
  let ip = input.toLowerCase();
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  if (!net.isIPv6(ip)) return null;
  // A trailing dotted IPv4 becomes two hextets.
  const lastColon = ip.lastIndexOf(':');
  const tail = ip.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    if (v4 === null) return null;
    ip = `${ip.slice(0, lastColon + 1)}${((v4 >>> 16) & 0xffff).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, rest] = ip.split('::') as [string, string | undefined];
  const headParts = head ? head.split(':') : [];
  const restParts = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const missing = 8 - headParts.length - restParts.length;
  const all = rest !== undefined ? [...headParts, ...Array<string>(missing).fill('0'), ...restParts] : headParts;
  if (all.length !== 8) return null;
  let v = 0n;
  for (const h of all) v = (v << 16n) | BigInt(parseInt(h || '0', 16));
  return v;
}

function parse(ip: string): Parsed | null {
  const v4 = net.isIPv4(ip) ? parseV4(ip) : null;
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseV6(ip);
  return v6 !== null ? { family: 6, value: v6 } : null;
}

const compiledV4 = V4_RANGES.map(([cidr, category]) => {
  const [base, bits] = cidr.split('/') as [string, string];
  const prefix = Number(bits);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { net: (parseV4(base)! & mask) >>> 0, mask, category };
});
const compiledV6 = V6_RANGES.map(([cidr, category]) => {
  const [base, bits] = cidr.split('/') as [string, string];
  const prefix = BigInt(Number(bits));
  const mask = prefix === 0n ? 0n : ((1n << 128n) - 1n) ^ ((1n << (128n - prefix)) - 1n);
  return { net: parseV6(base)! & mask, mask, category };
});

function classifyV4(v: number): AddressCategory {
  for (const r of compiledV4) if ((v & r.mask) >>> 0 === r.net) return r.category;
  return 'public';
}

/** The category of an IP address (IPv4 or IPv6 text, optionally in brackets). */
export function classifyAddress(address: string): AddressCategory {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const p = parse(ip);
  if (!p) return 'invalid';
  if (p.family === 4) return classifyV4(p.value);
  const v = p.value;
  // IPv6 forms that carry an IPv4 address are judged by that address.
  const top96 = v >> 32n;
  const low32 = Number(v & 0xffffffffn);
  if (top96 === 0xffffn) return classifyV4(low32); // ::ffff:a.b.c.d (IPv4-mapped)
  if (top96 === 0n && v > 1n) return classifyV4(low32) === 'public' ? 'reserved' : classifyV4(low32); // ::a.b.c.d (deprecated IPv4-compatible)
  if (top96 === 0x64ff9bn << 64n) return classifyV4(low32); // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (v >> 112n === 0x2002n) return classifyV4(Number((v >> 80n) & 0xffffffffn)); // 2002:AABB:CCDD::/48 (6to4)
  for (const r of compiledV6) if ((v & r.mask) === r.net) return r.category;
  return 'public';
}

export const isPublicAddress = (address: string) => classifyAddress(address) === 'public';

/** Host names that must never be fetched, whatever DNS says (RFC 6761 localhost; cloud metadata names). */
export function isBlockedHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === 'metadata.google.internal' ||
    h === 'metadata.goog' ||
    h === 'instance-data' ||
    h.endsWith('.internal')
  );
}
