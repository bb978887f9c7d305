import dns from 'node:dns';
import net from 'node:net';

/**
 * Where a fetch from an image URL may connect: public unicast addresses, and private ones only inside the ranges
 * an administrator listed (EDC_IMAGE_URL_PRIVATE_NETWORKS: a hospital's PACS on its intranet); loopback,
 * link-local, unspecified, multicast and reserved never. A listed host name is resolved once, every address it
 * answers is checked, and the connection goes to the address checked (pinnedLookup): a name that answers an
 * allowed address to the check and another one to the connection (DNS rebinding) has no second answer to give.
 */

/**
 * Never connected to, whatever the settings say: the local host (unspecified, "this network", loopback), link-local
 * (cloud metadata services answer on 169.254.169.254), multicast, reserved and broadcast.
 */
const NEVER: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified or "this network"'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved and broadcast'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

/** Refused unless a range of EDC_IMAGE_URL_PRIVATE_NETWORKS holds the address: private networks of every kind. */
const PRIVATE: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['fc00::', 7, 'ipv6'], // unique local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, still routed on some networks)
];

const never = new net.BlockList();
const refused = new net.BlockList();
for (const [subnet, prefix, family] of NEVER) {
  never.addSubnet(subnet, prefix, family);
  refused.addSubnet(subnet, prefix, family);
}
for (const [subnet, prefix, family] of PRIVATE) refused.addSubnet(subnet, prefix, family);

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The IPv4 address an IPv6 one carries: v4-mapped (::ffff:0:0/96), v4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16). */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return null;
}

type Family = 'ipv4' | 'ipv6';

/** The forms an IPv4 range takes inside IPv6, as embeddedIpv4 reads them back: v4-mapped, v4-compatible, NAT64, 6to4. */
function ipv6FormsOf(subnet: string, prefix: number): Array<readonly [string, number]> {
  const [a, b, c, d] = subnet.split('.').map(Number) as [number, number, number, number];
  const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
  return [
    [`::ffff:${subnet}`, 96 + prefix],
    [`::${subnet}`, 96 + prefix],
    [`64:ff9b::${subnet}`, 96 + prefix],
    [`2002:${hex(a, b)}:${hex(c, d)}::`, 16 + prefix],
  ];
}

/** What a listed range overlaps of the ranges never connected to (IPv4 ones inside IPv6 included), or null. */
function neverCoveredBy(address: string, prefix: number, family: Family): string | null {
  const range = new net.BlockList();
  range.addSubnet(address, prefix, family);
  const same = NEVER.filter(([, , f]) => f === family).map(([subnet, length, , label]) => ({
    start: subnet,
    bits: length,
    name: `${label} addresses (${subnet}/${length})`,
  }));
  const embedded =
    family === 'ipv4'
      ? []
      : NEVER.filter(([, , f]) => f === 'ipv4').flatMap(([subnet, length, , label]) =>
          ipv6FormsOf(subnet, length).map(([start, bits]) => ({
            start,
            bits,
            name: `${label} addresses (${subnet}/${length} inside IPv6: ${start}/${bits})`,
          })),
        );
  for (const { start, bits, name } of [...same, ...embedded]) {
    const one = new net.BlockList();
    one.addSubnet(start, bits, family);
    // Two ranges overlap when one holds the other's first address (or, written with host bits, any of its own).
    if (range.check(start, family) || one.check(address, family)) return name;
  }
  return null;
}

export class PrivateNetworksError extends Error {}

/** One listed range: `address/prefix`, or a single address (/32, /128); read by BlockList.addSubnet. */
function rangeOf(entry: string): { address: string; prefix: number; family: Family } {
  const [address = '', bits, extra] = entry.split('/');
  const version = address.includes('%') ? 0 : net.isIP(address);
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  const prefix = bits === undefined ? (version === 4 ? 32 : 128) : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  const problem = `"${entry}" is not a CIDR range (address/prefix, e.g. 10.20.0.0/16 or fd00:12::/32)`;
  if (!version || extra !== undefined) throw new PrivateNetworksError(problem);
  try {
    new net.BlockList().addSubnet(address, prefix, family);
  } catch {
    throw new PrivateNetworksError(problem);
  }
  return { address: address.toLowerCase(), prefix, family };
}

/**
 * Reads EDC_IMAGE_URL_PRIVATE_NETWORKS: comma-separated CIDR ranges (a hospital's intranet) that an allow-listed
 * host may resolve to although private. Answers them as `address/prefix`; throws PrivateNetworksError naming every
 * entry that is not a range, or that covers any address never connected to (loopback, link-local, unspecified,
 * multicast, reserved; also as IPv4 inside IPv6).
 */
export function parsePrivateNetworks(text: string): string[] {
  const problems: string[] = [];
  const ranges: string[] = [];
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    try {
      const { address, prefix, family } = rangeOf(entry);
      const covered = neverCoveredBy(address, prefix, family);
      if (covered) problems.push(`"${entry}" covers ${covered}, which are never fetched from`);
      else ranges.push(`${address}/${prefix}`);
    } catch (err) {
      if (!(err instanceof PrivateNetworksError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new PrivateNetworksError(problems.join('; '));
  return ranges;
}

const compiled = new Map<string, net.BlockList>();
/** The listed ranges as one BlockList (built once per setting). */
function networksOf(ranges: readonly string[]): net.BlockList {
  const key = ranges.join(',');
  let list = compiled.get(key);
  if (!list) {
    list = new net.BlockList();
    for (const entry of ranges) {
      const { address, prefix, family } = rangeOf(entry);
      list.addSubnet(address, prefix, family);
    }
    compiled.set(key, list);
  }
  return list;
}

/**
 * Loopback, private, link-local, unique-local, CGNAT, multicast, reserved (v4, v6 and v4 inside v6); anything not an
 * address. A private address inside one of privateNetworks (EDC_IMAGE_URL_PRIVATE_NETWORKS) is allowed; the ranges
 * never connected to (NEVER) stay refused whatever is listed.
 */
export function isRefusedAddress(raw: string, privateNetworks: readonly string[] = []): boolean {
  const address = raw.replace(/^\[|\]$/g, '').split('%')[0]!;
  const version = net.isIP(address);
  if (version !== 4 && version !== 6) return true;
  const embedded = version === 6 ? embeddedIpv4(address) : null;
  const holds = (list: net.BlockList) =>
    list.check(address, version === 4 ? 'ipv4' : 'ipv6') || (embedded !== null && list.check(embedded, 'ipv4'));
  if (!holds(refused)) return false;
  if (holds(never)) return true;
  return privateNetworks.length === 0 || !holds(networksOf(privateNetworks));
}

/** The network seen by image fetches; tests stand in for DNS, for the public internet and for the intranet through it. */
export const imageUrlNetwork = {
  resolve: (hostname: string): Promise<dns.LookupAddress[]> =>
    dns.promises.lookup(hostname, { all: true, verbatim: true }),
  refuses: isRefusedAddress,
  /** The lookup a fetch's connections use: it answers the address checked. */
  pin: (address: dns.LookupAddress): net.LookupFunction => pinnedLookup(address),
};

export class AddressRefused extends Error {}

/**
 * Resolves a host once and answers the address to connect to, or refuses when any answer is not public (or, when
 * private, not inside one of privateNetworks).
 */
export async function resolvePublic(
  hostname: string,
  privateNetworks: readonly string[] = [],
): Promise<dns.LookupAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  const addresses = family ? [{ address: host, family }] : await imageUrlNetwork.resolve(host);
  if (addresses.length === 0 || addresses.some((a) => imageUrlNetwork.refuses(a.address, privateNetworks))) {
    throw new AddressRefused(host);
  }
  return addresses[0]!;
}

/** A lookup that answers only the address already checked: the socket connects there and nowhere else. */
export function pinnedLookup(pinned: dns.LookupAddress): net.LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (err: null, addresses: dns.LookupAddress[]) => void)(null, [pinned]);
      return;
    }
    callback(null, pinned.address, pinned.family);
  };
}
