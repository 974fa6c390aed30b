// The address guard on its own: every IANA special-purpose range refused in every textual
// form node:net accepts, public addresses let through, IPv4 addresses never caught by an
// IPv6 rule, and the operator allow-list opening exactly what it lists.
import { describe, expect, it } from 'vitest';
import { AllowList, isPrivateAddress, isReachable, parseAllowEntry, refusalOfUrl } from './address-guard.ts';

describe('the address guard', () => {
  it.each([
    '0.0.0.0', '10.1.2.3', '100.64.0.1', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.31.196.1', '192.52.193.1',
    '192.88.99.1', '192.168.0.1', '192.175.48.1', '198.18.0.1', '198.51.100.1', '203.0.113.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '::', '::1', '::127.0.0.1', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:8.8.8.8', '::ffff:0:7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1',
    '100::1', '2001::1', '2001:2::1', '2001:db8::1', '2002:7f00:1::', '3fff::1', '5f00::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'ff02::1', 'not-an-address',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('lets the public address %s through', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it('opens exactly what the operator lists', () => {
    const allow = new AllowList(['127.0.0.1/32', 'fd00::/8']);
    expect(isReachable('127.0.0.1', allow)).toBe(true);
    expect(isReachable('127.0.0.2', allow)).toBe(false);
    expect(isReachable('fd00::5', allow)).toBe(true);
    expect(isReachable('10.0.0.1', allow)).toBe(false);
    expect(isReachable('127.0.0.1', null)).toBe(false);
    expect(() => parseAllowEntry('127.0.0.1/40')).toThrow(/prefix/);
    expect(() => parseAllowEntry('localhost')).toThrow(/not an address/);
  });

  it('refuses local names, credentials and other schemes before any lookup, the allow-list notwithstanding', () => {
    const allow = new AllowList(['127.0.0.1/32']);
    expect(refusalOfUrl(new URL('http://localhost:1/'), allow)).toMatch(/local name/);
    expect(refusalOfUrl(new URL('http://a.local/'), allow)).toMatch(/local name/);
    expect(refusalOfUrl(new URL('http://u:p@example.test/'), allow)).toMatch(/credentials/);
    expect(refusalOfUrl(new URL('ftp://example.test/'), allow)).toMatch(/ftp:/);
    expect(refusalOfUrl(new URL('http://2130706433:1/'), null)).toMatch(/127\.0\.0\.1 is not a public address/);
    expect(refusalOfUrl(new URL('http://2130706433:1/'), allow)).toBeNull();
    expect(refusalOfUrl(new URL('https://example.test/'), null)).toBeNull();
  });
});
