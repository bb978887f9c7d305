import dns from 'node:dns';
import net from 'node:net';

/**
 * Where a fetch from an image URL may connect: public unicast addresses only. A listed host name is resolved
 * once, every address it answers is checked, and the connection goes to the address checked (pinnedLookup):
 * a name that answers a public address to the check and a private one to the connection (DNS rebinding) has no
 * second answer to give.
 */

const refused = new net.BlockList();
for (const [subnet, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 reaches the local host
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  refused.addSubnet(subnet, prefix, 'ipv4');
}
for (const [subnet, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed on some networks)
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(subnet, prefix, 'ipv6');
}

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

/** Loopback, private, link-local, unique-local, CGNAT, multicast, reserved (v4, v6 and v4 inside v6); anything not an address. */
export function isRefusedAddress(raw: string): boolean {
  const address = raw.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = net.isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  if (refused.check(address, 'ipv6')) return true;
  const embedded = embeddedIpv4(address);
  return embedded !== null && refused.check(embedded, 'ipv4');
}

/** The network seen by image fetches; tests stand in for DNS and for the public internet through it. */
export const imageUrlNetwork = {
  resolve: (hostname: string): Promise<dns.LookupAddress[]> =>
    dns.promises.lookup(hostname, { all: true, verbatim: true }),
  refuses: isRefusedAddress,
};

export class AddressRefused extends Error {}

/** Resolves a host once and answers the address to connect to, or refuses when any answer is not public. */
export async function resolvePublic(hostname: string): Promise<dns.LookupAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  const addresses = family ? [{ address: host, family }] : await imageUrlNetwork.resolve(host);
  if (addresses.length === 0 || addresses.some((a) => imageUrlNetwork.refuses(a.address))) {
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
