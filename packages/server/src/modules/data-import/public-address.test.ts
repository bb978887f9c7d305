import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { judgeUrl } from './image-url.js';
import { isRefusedAddress, parsePrivateNetworks, PrivateNetworksError } from './public-address.js';

describe('the addresses an image fetch may connect to', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'this host'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'IPv6 loopback'],
    ['[::1]', 'IPv6 loopback in brackets'],
    ['fd00::1', 'unique local'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hexadecimal'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local, hexadecimal'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['2002:c0a8:1::1', '6to4 of a private address'],
    ['localhost', 'not an address'],
    ['', 'empty'],
  ])('refuses %s (%s)', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    ['93.184.216.34'],
    ['8.8.8.8'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['2606:2800:220:1:248:1893:25c8:1946'],
    ['::ffff:93.184.216.34'],
    ['64:ff9b::808:808'],
  ])('allows the public address %s', (address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });
});

describe('private networks listed for image hosts (EDC_IMAGE_URL_PRIVATE_NETWORKS)', () => {
  const intranet = parsePrivateNetworks('10.20.0.0/16, FD00:12::/32,192.168.7.9');

  it('reads CIDR ranges and single addresses', () => {
    expect(intranet).toEqual(['10.20.0.0/16', 'fd00:12::/32', '192.168.7.9/32']);
    expect(parsePrivateNetworks('')).toEqual([]);
    expect(parsePrivateNetworks(' , ')).toEqual([]);
  });

  it.each([
    ['10.20.0.1'],
    ['10.20.255.254'],
    ['192.168.7.9'],
    ['fd00:12:ab::5'],
    ['::ffff:10.20.3.4'],
    ['::ffff:a14:304'],
  ])('allows %s, private but inside a listed range', (address) => {
    expect(isRefusedAddress(address, intranet)).toBe(false);
  });

  it.each([
    ['10.21.0.1'],
    ['10.0.0.5'],
    ['192.168.7.10'],
    ['172.16.0.1'],
    ['fd00:13::1'],
    ['fc00::1'],
    ['::ffff:10.21.0.1'],
  ])('still refuses %s, private outside the listed ranges', (address) => {
    expect(isRefusedAddress(address, intranet)).toBe(true);
  });

  it('keeps loopback, link-local, unspecified and multicast refused even when a range holds them', () => {
    // Ranges handed over without parsePrivateNetworks (which refuses them): the check itself still refuses.
    const listed = ['0.0.0.0/0', '::/0'];
    for (const address of [
      '127.0.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '64:ff9b::a9fe:a9fe',
    ]) {
      expect(isRefusedAddress(address, listed), address).toBe(true);
    }
    expect(isRefusedAddress('10.1.2.3', listed)).toBe(false);
  });

  it.each([
    ['127.0.0.0/8', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['10.0.0.0/4', 'unspecified'], // read as 0.0.0.0/4
    ['0.0.0.0/0', 'unspecified'],
    ['169.254.169.254/32', 'link-local'],
    ['169.0.0.0/8', 'link-local'],
    ['224.0.0.0/4', 'multicast'],
    ['::/0', 'unspecified'],
    ['::1/128', 'loopback'],
    ['fe80::/10', 'link-local'],
    ['fe80::1/64', 'link-local'],
    ['ff00::/8', 'multicast'],
    ['::ffff:0:0/96', 'unspecified'],
    ['::ffff:127.0.0.0/104', 'loopback'],
    ['64:ff9b::a9fe:0/112', 'link-local'],
    ['2002:7f00::/24', 'loopback'],
  ])('refuses the range %s: it covers %s addresses', (range, kind) => {
    expect(() => parsePrivateNetworks(`10.20.0.0/16,${range}`)).toThrow(PrivateNetworksError);
    expect(() => parsePrivateNetworks(range)).toThrow(`covers ${kind}`);
  });

  it.each([
    ['10.20.0.0/33'],
    ['10.20.0.0/'],
    ['10.20.0.0/16/2'],
    ['10.20.0/16'],
    ['fd00:12::/129'],
    ['intranet'],
    ['10.20.0.0/x'],
    ['fe80::1%eth0/64'],
  ])('refuses %s: not a CIDR range', (range) => {
    expect(() => parsePrivateNetworks(range)).toThrow(`"${range}" is not a CIDR range`);
  });

  it('lets a listed IP literal inside a listed range through the URL check; loopback and link-local literals never', () => {
    const pacs = 'http://10.20.0.7:8042/wado?studyUID=1';
    const hosts = ['10.20.0.7:8042', '127.0.0.1', '169.254.169.254'];
    expect(judgeUrl(pacs, 'edc.local', hosts, intranet)).toMatchObject({ kind: 'remote' });
    expect(() => judgeUrl(pacs, 'edc.local', hosts)).toThrow('不允许访问内网或本机地址');
    for (const url of ['http://127.0.0.1/a.png', 'http://169.254.169.254/latest/meta-data']) {
      expect(() => judgeUrl(url, 'edc.local', hosts, ['0.0.0.0/0']), url).toThrow('不允许访问内网或本机地址');
    }
  });

  it('is read at start: the server refuses to start on a bad value, naming the variable', () => {
    expect(loadConfig({ EDC_IMAGE_URL_PRIVATE_NETWORKS: '10.20.0.0/16,fd00:12::/32' }).imageUrlPrivateNetworks).toEqual(
      ['10.20.0.0/16', 'fd00:12::/32'],
    );
    expect(loadConfig({}).imageUrlPrivateNetworks).toEqual([]);
    for (const [value, problem] of [
      ['10.20.0.0/16,127.0.0.0/8', '"127.0.0.0/8" covers loopback addresses (127.0.0.0/8)'],
      ['169.254.0.0/16', '"169.254.0.0/16" covers link-local (cloud metadata) addresses (169.254.0.0/16)'],
      ['10.20.0.0/33', '"10.20.0.0/33" is not a CIDR range'],
    ]) {
      expect(() => loadConfig({ EDC_IMAGE_URL_PRIVATE_NETWORKS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ EDC_IMAGE_URL_PRIVATE_NETWORKS: value })).toThrow(
        `EDC_IMAGE_URL_PRIVATE_NETWORKS: ${problem}`,
      );
    }
  });
});
