import { describe, expect, it } from 'vitest';
import {
  DECORATION_ONLY,
  findStart,
  REQUEST_END,
  REQUEST_START,
} from '../../src/protocol/request-markers.js';

describe('findStart', () => {
  it('finds a start marker with its attribute text and where it ends', () => {
    const line = 'say <<CONTROLLER_REQUEST id=a type=question>> body';
    expect(findStart(line, 0)).toEqual({
      index: 4,
      attributeText: ' id=a type=question',
      after: line.indexOf(' body'),
    });
    expect(findStart(`${REQUEST_START}>>`, 0)).toEqual({
      index: 0,
      attributeText: '',
      after: REQUEST_START.length + 2,
    });
  });

  it('never takes the end marker for a start', () => {
    expect(findStart(REQUEST_END, 0)).toBeUndefined();
    expect(findStart(`${REQUEST_END} ${REQUEST_START}>>`, 0)?.index).toBe(
      REQUEST_END.length + 1,
    );
  });

  it('looks from the given index on', () => {
    const line = `${REQUEST_START} id=a>> x ${REQUEST_START} id=b>>`;
    const first = findStart(line, 0);
    expect(first?.attributeText).toBe(' id=a');
    expect(findStart(line, first?.after ?? 0)?.attributeText).toBe(' id=b');
    expect(findStart(line, line.length)).toBeUndefined();
  });

  it('refuses attribute text holding < or >', () => {
    expect(findStart('<<CONTROLLER_REQUEST id=<x>>', 0)).toBeUndefined();
    expect(findStart('<<CONTROLLER_REQUESTid=x>>', 0)).toBeUndefined();
  });
});

describe('DECORATION_ONLY', () => {
  it('matches fragments that hold only borders, bullets and spaces', () => {
    for (const text of ['', '  ', '│ ● ', '┃', '⏺ ', '⎿  ', '• |'])
      expect(DECORATION_ONLY.test(text)).toBe(true);
    for (const text of ['x', '│ a', '> ', '-'])
      expect(DECORATION_ONLY.test(text)).toBe(false);
  });
});
