/**
 * The server-side request forgery guard: which addresses are refused, in every spelling, and host
 * names judged by every address they resolve to.
 */
import { describe, expect, it } from 'vitest';
import { assertPublicUrl, BlockedUrlError, isPrivateAddress } from '../../gateway/security/url-guard.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    'fc00::abcd',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '::127.0.0.1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '93.184.215.14',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::ffff:0:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b:1::808:808',
    '64:ff9b:1:808:8:800::',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows the public address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('isPrivateAddress on IPv6 ranges that embed an IPv4 address', () => {
  it.each([
    ['IPv4-translated (RFC 2765)', '::ffff:0:127.0.0.1'],
    ['IPv4-translated, hex', '::ffff:0:7f00:1'],
    ['IPv4-translated, metadata', '::ffff:0:a9fe:a9fe'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4 of RFC 1918', '2002:a00:1::1'],
    ['6to4 of metadata', '2002:a9fe:a9fe:1::1'],
    ['local-use NAT64 /96', '64:ff9b:1::7f00:1'],
    ['local-use NAT64 /96, other operator bits', '64:ff9b:1:abcd:ef:1:a00:5'],
    ['local-use NAT64 /48', '64:ff9b:1:7f00:0:100::'],
    ['local-use NAT64 /64', '64:ff9b:1:0:a:a00:1:0'],
    ['local-use NAT64, reserved bits set (no valid layout)', '64:ff9b:1:0:ff00::808:808'],
    ['well-known NAT64 of RFC 1918', '64:ff9b::c0a8:101'],
    ['Teredo, private server', '2001:0:a00:1:8000:63bf:f7f7:f7f7'],
    ['Teredo, loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ])('refuses %s: %s', (_form, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
});

describe('assertPublicUrl', () => {
  const resolver = (answers: Record<string, string[]>) => async (host: string) => {
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses;
  };
  const resolve = resolver({
    'api.example.com': ['93.184.215.14', '2606:4700::1111'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
  });

  it('allows a host whose every address is public', async () => {
    await expect(
      assertPublicUrl('https://api.example.com/v1', { allowPrivate: false, resolve }),
    ).resolves.toBeUndefined();
    await expect(
      assertPublicUrl('http://93.184.215.14:8080/v1', { allowPrivate: false, resolve }),
    ).resolves.toBeUndefined();
  });

  it.each([
    'http://internal.example.com/v1',
    'http://mixed.example.com/v1',
    'http://metadata.example.com/latest',
    'http://127.0.0.1:11434/v1',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[64:ff9b:1::7f00:1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd12:3456::1]/',
    'http://unknown.example.com/',
    'file:///etc/passwd',
    'gopher://127.0.0.1/',
    'not a url',
  ])('refuses %s', async (url) => {
    await expect(assertPublicUrl(url, { allowPrivate: false, resolve })).rejects.toBeInstanceOf(BlockedUrlError);
  });

  it('allows private addresses with allowPrivate (ALLOW_PRIVATE_UPSTREAMS=true), but never other schemes', async () => {
    await expect(
      assertPublicUrl('http://127.0.0.1:11434/v1', { allowPrivate: true, resolve }),
    ).resolves.toBeUndefined();
    await expect(assertPublicUrl('file:///etc/passwd', { allowPrivate: true, resolve })).rejects.toBeInstanceOf(
      BlockedUrlError,
    );
  });
});
