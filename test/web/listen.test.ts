import { describe, expect, it } from 'vitest';
import { isLoopback, parseListen } from '../../src/cli/web.js';

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

  it.each(['', 'nope', '127.0.0.1:99999', '1.2.3.4:', 'a:b:c'])(
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
