import { describe, expect, it } from 'vitest';
import {
  classifyOutboxName,
  parseDismissFile,
} from '../../src/backends/outbox-names.js';

describe('classifyOutboxName', () => {
  it.each([
    ['worker-1-q-17.txt', { id: 'worker-1-q-17' }],
    [
      'worker-1-20260101T101010-abcdef12.txt',
      { id: 'worker-1-20260101T101010-abcdef12' },
    ],
    ['.worker-1-q.txt.swp', { rejected: 'temp-file' }],
    ['worker-1-q.txt~', { rejected: 'temp-file' }],
    ['.#worker-1-q.txt', { rejected: 'temp-file' }],
    ['#worker-1-q.txt#', { rejected: 'temp-file' }],
    ['worker-1-q.txt.tmp', { rejected: 'temp-file' }],
    ['worker-1-q.md', { rejected: 'not-txt' }],
    ['worker-1-q-17.dismiss', { id: 'worker-1-q-17', dismiss: true }],
    ['we ird.txt', { rejected: 'bad-name' }],
    ['ünï.txt', { rejected: 'bad-name' }],
  ])('%s', (name, expected) => {
    expect(classifyOutboxName(name)).toEqual(expected);
  });
});

describe('parseDismissFile', () => {
  it('reads the agent, the reason and who dismissed', () => {
    expect(
      parseDismissFile(
        JSON.stringify({ agent: 'w1', reason: 'not needed', by: 'mcp' }),
      ),
    ).toEqual({ agent: 'w1', reason: 'not needed', by: 'mcp' });
  });

  it('defaults the reason to empty and the dismisser to a person', () => {
    expect(parseDismissFile('{"agent":"w1"}')).toEqual({
      agent: 'w1',
      reason: '',
      by: 'person',
    });
  });

  it('cuts a long reason and a long name', () => {
    const parsed = parseDismissFile(
      JSON.stringify({
        agent: 'w1',
        reason: 'r'.repeat(900),
        by: 'b'.repeat(90),
      }),
    );
    expect(parsed?.reason).toHaveLength(500);
    expect(parsed?.by).toHaveLength(64);
  });

  it.each([
    ['', 'empty (still being written)'],
    ['{"agent":', 'cut JSON'],
    ['{"reason":"x"}', 'no agent'],
    ['{"agent":""}', 'an empty agent'],
    ['{"agent":7}', 'an agent that is not text'],
  ])('is undefined for %j (%s)', (text) => {
    expect(parseDismissFile(text)).toBeUndefined();
  });
});
