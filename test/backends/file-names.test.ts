import { describe, expect, it } from 'vitest';
import { classifyOutboxName } from '../../src/backends/file.js';

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
