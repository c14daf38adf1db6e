import { sourceOf } from '../../../core/token/lockout';

describe('the source failures are counted per', () => {
  it('is an IPv4 address as it is', () => {
    expect(sourceOf('203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 network of an IPv6 address, however the address is written', () => {
    const net = '2001:db8:0:12::/64';
    for (const a of [
      '2001:db8::12:0:0:0:1',
      '2001:0db8:0000:0012:ffff:ffff:ffff:ffff',
      '2001:db8:0:12::1',
      '2001:db8:0:12:1::',
      '2001:db8:0:12::1%eth0',
    ]) {
      expect(sourceOf(a)).toBe(net);
    }
    expect(sourceOf('2001:db8:0:13::1')).toBe('2001:db8:0:13::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('is `unknown` without an address (an in-process call), and anything else as it is', () => {
    expect(sourceOf(undefined)).toBe('unknown');
    expect(sourceOf('')).toBe('unknown');
    expect(sourceOf('not an address')).toBe('not an address');
  });
});
