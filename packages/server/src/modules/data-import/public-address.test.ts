import { describe, expect, it } from 'vitest';
import { isRefusedAddress } from './public-address.js';

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
