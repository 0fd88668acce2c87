import { describe, expect, it } from 'vitest';
import { parseRequestAttributes } from '../../src/protocol/request-attributes.js';

describe('parseRequestAttributes', () => {
  it('keeps valid attributes and defaults the type to question', () => {
    expect(parseRequestAttributes(' id=q-17 priority=high ')).toEqual({
      attributes: { id: 'q-17', priority: 'high', type: 'question' },
      dropped: [],
    });
    expect(parseRequestAttributes('type=approval').attributes).toEqual({
      type: 'approval',
    });
    expect(parseRequestAttributes('').attributes).toEqual({
      type: 'question',
    });
  });

  it('limits priority to low, normal and high', () => {
    for (const priority of ['low', 'normal', 'high'])
      expect(
        parseRequestAttributes(`priority=${priority}`).attributes.priority,
      ).toBe(priority);
    expect(parseRequestAttributes('priority=urgent')).toEqual({
      attributes: { type: 'question' },
      dropped: [
        {
          type: 'attribute-dropped',
          key: 'priority',
          value: 'urgent',
          reason: 'bad-value',
        },
      ],
    });
  });

  it('reports each dropped token as an event', () => {
    expect(parseRequestAttributes('../k=v id=a id=b id').dropped).toEqual([
      { type: 'attribute-dropped', key: '../k', value: 'v', reason: 'bad-key' },
      { type: 'attribute-dropped', key: 'id', value: 'b', reason: 'duplicate' },
      { type: 'attribute-dropped', key: 'id', value: '', reason: 'bad-value' },
    ]);
  });

  it('cuts a dropped key and value to 100 characters, since they are logged', () => {
    const long = 'k'.repeat(150);
    const [dropped] = parseRequestAttributes(
      `${long}=${'v'.repeat(150)}`,
    ).dropped;
    expect(dropped?.key).toBe(`${'k'.repeat(100)}…`);
    expect(dropped?.value).toBe(`${'v'.repeat(100)}…`);
  });
});
