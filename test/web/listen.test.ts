import os from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  isLoopback,
  listenUrls,
  parseListen,
  WEB_DEFAULT_PORT,
} from '../../src/web/listen.js';

describe('macs web --listen', () => {
  it.each([
    ['127.0.0.1:7717', '127.0.0.1', 7717],
    ['0.0.0.0:8080', '0.0.0.0', 8080],
    ['[::1]:7717', '::1', 7717],
    ['localhost:0', 'localhost', 0],
    ['7717', '127.0.0.1', 7717],
  ])('%s -> %s port %d', (listen, host, port) => {
    expect(parseListen(listen)).toEqual({ host, port });
  });

  // Issue 29: `--listen 0.0.0.0` (no port) was refused as "not an
  // address:port"; an address alone takes the default port.
  it.each([
    ['0.0.0.0', '0.0.0.0'],
    ['192.168.1.20', '192.168.1.20'],
    ['::', '::'],
    ['[::]', '::'],
    ['::1', '::1'],
    ['localhost', 'localhost'],
  ])('%s alone -> %s on the default port', (listen, host) => {
    expect(parseListen(listen)).toEqual({ host, port: WEB_DEFAULT_PORT });
  });

  it.each(['', 'nope', '127.0.0.1:99999', '1.2.3.4:', 'a:b:c', '[::1]:'])(
    "'%s' is refused with an example",
    (listen) => {
      expect(() => parseListen(listen)).toThrow(/--listen/);
    },
  );

  it('knows what only this machine reaches', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('127.1.2.3')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.2')).toBe(false);
  });
});

// Issue 29: `macs web --listen 0.0.0.0:7717` printed only
// http://127.0.0.1:7717/?token=…, which a phone cannot open. A bind to
// every address lists this machine's own addresses (os.networkInterfaces()),
// each as the URL to open with the secret, loopback first. Tested as a pure
// function of the interfaces: no test binds 0.0.0.0.
describe('macs web: the URLs printed for an address', () => {
  const v4 = (address: string, internal = false) => ({
    address,
    netmask: '255.255.255.0',
    family: 'IPv4' as const,
    mac: '00:00:00:00:00:00',
    internal,
    cidr: `${address}/24`,
  });
  const v6 = (address: string, scopeid = 0, internal = false) => ({
    address,
    netmask: 'ffff:ffff:ffff:ffff::',
    family: 'IPv6' as const,
    mac: '00:00:00:00:00:00',
    internal,
    cidr: `${address}/64`,
    scopeid,
  });
  const interfaces = {
    lo: [v4('127.0.0.1', true), v6('::1', 0, true)],
    eth0: [v4('192.168.1.20'), v6('2001:db8::20'), v6('fe80::1', 2)],
    wlan0: [v4('10.0.0.5')],
  };

  it('0.0.0.0: loopback, then every IPv4 address of the machine', () => {
    expect(listenUrls('0.0.0.0', 7717, 'S', interfaces)).toEqual([
      { url: 'http://127.0.0.1:7717/?token=S', where: 'this machine' },
      { url: 'http://192.168.1.20:7717/?token=S', where: 'eth0' },
      { url: 'http://10.0.0.5:7717/?token=S', where: 'wlan0' },
    ]);
  });

  it('::: IPv6 and IPv4 addresses, never a link-local one (a browser cannot open it)', () => {
    expect(listenUrls('::', 8080, 'S', interfaces).map((u) => u.url)).toEqual([
      'http://[::1]:8080/?token=S',
      'http://192.168.1.20:8080/?token=S',
      'http://[2001:db8::20]:8080/?token=S',
      'http://10.0.0.5:8080/?token=S',
    ]);
  });

  it('one address: that address only', () => {
    expect(listenUrls('127.0.0.1', 7717, 'S', interfaces)).toEqual([
      { url: 'http://127.0.0.1:7717/?token=S', where: 'this machine' },
    ]);
    expect(listenUrls('192.168.1.20', 7717, 'S', interfaces)).toEqual([
      { url: 'http://192.168.1.20:7717/?token=S', where: 'eth0' },
    ]);
    expect(listenUrls('::1', 7717, 'S', {})[0]?.url).toBe(
      'http://[::1]:7717/?token=S',
    );
  });

  it('0.0.0.0 on this machine: every non-internal IPv4 address it reports', () => {
    const reported = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal)
      .map((a) => `http://${a?.address}:7717/?token=S`);
    const urls = listenUrls('0.0.0.0', 7717, 'S').map((u) => u.url);
    expect(urls[0]).toBe('http://127.0.0.1:7717/?token=S');
    // A machine with only loopback (some CI runners) lists loopback alone.
    expect(urls.slice(1).sort()).toEqual([...new Set(reported)].sort());
  });
});
