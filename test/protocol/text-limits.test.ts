import { describe, expect, it } from 'vitest';
import {
  shorten,
  tailByWeight,
  utf8Bytes,
  weightOf,
} from '../../src/protocol/text-limits.js';

describe('weightOf', () => {
  it('counts UTF-8 bytes per code unit, each half of a surrogate pair as 3', () => {
    expect(weightOf('')).toBe(0);
    expect(weightOf('a')).toBe(1);
    expect(weightOf('é')).toBe(2);
    expect(weightOf('日')).toBe(3);
    expect(weightOf('😀')).toBe(6);
  });

  it('adds up across any split, a surrogate pair included', () => {
    const text = 'aé日😀 x';
    for (let at = 0; at <= text.length; at += 1)
      expect(weightOf(text.slice(0, at)) + weightOf(text.slice(at))).toBe(
        weightOf(text),
      );
  });

  it('is never below the UTF-8 size', () => {
    for (const text of ['plain', 'Ça va? 😀 — 日本語', '\u0000\u007f\u0080'])
      expect(weightOf(text)).toBeGreaterThanOrEqual(utf8Bytes(text));
  });
});

describe('tailByWeight', () => {
  it('keeps the longest suffix that fits the cap', () => {
    expect(tailByWeight('abcdef', 3)).toBe('def');
    expect(tailByWeight('abc', 10)).toBe('abc');
    expect(tailByWeight('a日', 3)).toBe('日');
    expect(tailByWeight('a日', 2)).toBe('');
    expect(tailByWeight('abc', 0)).toBe('');
  });
});

describe('utf8Bytes', () => {
  it('is the exact UTF-8 size', () => {
    expect(utf8Bytes('a')).toBe(1);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('日')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
  });
});

describe('shorten', () => {
  it('cuts to max characters and marks the cut', () => {
    expect(shorten('abc', 3)).toBe('abc');
    expect(shorten('abcd', 3)).toBe('abc…');
    expect(shorten('', 0)).toBe('');
  });
});
