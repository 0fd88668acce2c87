import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTE_VALUE,
  hashBody,
  isSafeFileName,
  isValidAgentName,
  makeRequestId,
} from '../../src/protocol/ids.js';

const NOW = new Date('2025-03-04T05:06:07.890Z');

describe('hashBody', () => {
  it('is the sha1 hex of the UTF-8 body', () => {
    expect(hashBody('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(hashBody('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    // "é" is hashed as its two UTF-8 bytes (c3 a9), not as latin-1 e9
    expect(hashBody('é')).toBe('bf15be717ac1b080b4f1c456692825891ff5073d');
    expect(hashBody('é')).not.toBe('1599e9fa41ec68c80230491902786bee889f5bcb');
  });
});

describe('makeRequestId', () => {
  it('prefixes the worker id with the agent name', () => {
    expect(
      makeRequestId({
        agent: 'worker-1',
        workerId: 'q-17',
        body: 'x',
        now: NOW,
      }),
    ).toBe('worker-1-q-17');
  });

  it('uses the UTC time and the body hash without a worker id', () => {
    expect(makeRequestId({ agent: 'worker-1', body: 'abc', now: NOW })).toBe(
      'worker-1-20250304T050607-a9993e36',
    );
  });

  it('pads every field of the time', () => {
    const id = makeRequestId({
      agent: 'w',
      body: '',
      now: new Date('0999-01-02T03:04:05Z'),
    });
    expect(id).toBe('w-09990102T030405-da39a3ee');
  });

  it('gives different ids for different bodies at the same second', () => {
    const a = makeRequestId({ agent: 'w', body: 'a', now: NOW });
    const b = makeRequestId({ agent: 'w', body: 'b', now: NOW });
    expect(a).not.toBe(b);
  });

  it.each(['', '../x', 'a/b', '.hidden', '-dash', 'a b', 'x'.repeat(65)])(
    'throws on the invalid agent name %j',
    (agent) => {
      expect(() => makeRequestId({ agent, body: 'x', now: NOW })).toThrow(
        /invalid agent name/,
      );
    },
  );

  it.each(['../../etc/passwd', '', 'x'.repeat(65), 'a b', '"x"'])(
    'throws on the invalid worker id %j',
    (workerId) => {
      expect(() =>
        makeRequestId({ agent: 'w', workerId, body: 'x', now: NOW }),
      ).toThrow(/invalid worker request id/);
    },
  );

  it('throws on an invalid date', () => {
    expect(() =>
      makeRequestId({ agent: 'w', body: 'x', now: new Date('nope') }),
    ).toThrow(/invalid date/);
  });

  it('is a safe file name for the longest names', () => {
    const id = makeRequestId({
      agent: 'a'.repeat(64),
      workerId: 'b'.repeat(64),
      body: '',
      now: NOW,
    });
    expect(isSafeFileName(id)).toBe(true);
  });
});

describe('isValidAgentName', () => {
  it.each([
    ['controller', true],
    ['worker-1', true],
    ['w.2_b', true],
    ['9lives', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['', false],
    ['-x', false],
    ['.x', false],
    ['a:b', false],
    ['a/b', false],
    ['wörker', false],
  ])('%j -> %s', (name, expected) => {
    expect(isValidAgentName(name)).toBe(expected);
  });
});

describe('isSafeFileName', () => {
  it.each([
    ['worker-1-q-17', true],
    ['a.b:c_d-e', true],
    ['x'.repeat(200), true],
    ['x'.repeat(201), false],
    ['', false],
    ['.', false],
    ['..', false],
    ['.hidden', false],
    ['a/b', false],
    ['a\\b', false],
    ['a b', false],
    ['a\u0000b', false],
    ['é', false],
  ])('%j -> %s', (name, expected) => {
    expect(isSafeFileName(name)).toBe(expected);
  });
});

describe('ATTRIBUTE_VALUE', () => {
  it.each([
    ['q-17', true],
    ['a.b:c_d', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['../../etc/passwd', false],
    ['"x"', false],
    ['ü', false],
  ])('%j -> %s', (value, expected) => {
    expect(ATTRIBUTE_VALUE.test(value)).toBe(expected);
  });
});
