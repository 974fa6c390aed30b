// Which addresses an outbound call may reach. Used on the address actually
// connected to (after DNS), never on the URL's text alone.
//
// Refused: every range of the IANA IPv4 and IPv6 special-purpose address registries
// (loopback, private, link-local, CGNAT, documentation, benchmarking, multicast,
// reserved, broadcast, unique-local ...), and every IPv6 form that carries an IPv4
// address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64 and 6to4), whatever the
// IPv4 address inside. node:net's BlockList parses the address, so every textual form
// of one address (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`) is one address here.
//
// An operator allow-list (OUTBOUND_ALLOW_LIST) can open chosen ranges: it is server
// configuration, empty by default, and nothing a tenant writes can widen it.
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

const specialV4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast 255.255.255.255
];

const specialV6: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

// One list per family: a BlockList checks an IPv4 address against its IPv6 rules too (as
// ::ffff:a.b.c.d), so the IPv4-mapped rule would refuse every IPv4 address.
const specialByFamily = { ipv4: new BlockList(), ipv6: new BlockList() };
for (const [net, bits] of specialV4) specialByFamily.ipv4.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of specialV6) specialByFamily.ipv6.addSubnet(net, bits, 'ipv6');

const family = (ip: string): 'ipv4' | 'ipv6' | null => (isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : null);

/** True when the address is loopback, private, link-local, CGNAT, multicast or in any other special-purpose range; anything that is not an address is not public either. */
export function isPrivateAddress(ip: string): boolean {
  const f = family(ip);
  return f === null || specialByFamily[f].check(ip, f);
}

/** Ranges the operator opened (OUTBOUND_ALLOW_LIST): addresses or CIDR blocks, IPv4 or IPv6. */
export class AllowList {
  readonly #list = new BlockList();
  readonly entries: readonly string[];

  constructor(entries: readonly string[] = []) {
    this.entries = entries;
    for (const e of entries) {
      const [net, bits] = parseAllowEntry(e);
      const f = family(net)!;
      this.#list.addSubnet(net, bits, f);
    }
  }

  has(ip: string): boolean {
    const f = family(ip);
    return f !== null && this.#list.check(ip, f);
  }
}

/** `127.0.0.1`, `10.0.0.0/8`, `::1/128` → [address, prefix bits]; throws with the reason otherwise. */
export function parseAllowEntry(entry: string): [string, number] {
  const [net = '', bitsText, extra] = entry.trim().split('/');
  const v = isIP(net);
  if (v === 0 || extra !== undefined) throw new Error(`${entry} is not an address or an address/prefix (e.g. 127.0.0.1/32)`);
  const max = v === 4 ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max || (bitsText !== undefined && !/^\d+$/.test(bitsText))) throw new Error(`${entry}: the prefix must be a whole number from 0 to ${max}`);
  return [net, bits];
}

/** True when an outbound call to a tenant-chosen target may connect to `ip`: public, or opened by the operator. */
export function isReachable(ip: string, allow: AllowList | null): boolean {
  return !isPrivateAddress(ip) || (allow !== null && allow.has(ip));
}

/** Why a tenant-chosen URL is refused before any lookup, or null: scheme, credentials, local names, special-purpose literals. */
export function refusalOfUrl(url: URL, allow: AllowList | null): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} URLs are not allowed: use http:// or https://`;
  if (url.username !== '' || url.password !== '') return 'credentials in the URL (user:password@) are not allowed: store the secret on its own';
  const host = hostOf(url);
  if (host === '') return 'the URL has no host';
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return `${host} is a local name: only public hosts can be reached`;
  if (isIP(host) !== 0 && !isReachable(host, allow)) return `${host} is not a public address (loopback, private, link-local and other special-purpose ranges are refused)`;
  return null;
}

/** The URL's host as connected to: brackets off an IPv6 literal, lower case, no trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
}
