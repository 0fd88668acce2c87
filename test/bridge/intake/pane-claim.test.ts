import { describe, expect, it } from 'vitest';
import {
  decidePipe,
  paneTagConflict,
} from '../../../src/bridge/intake/pane-claim.js';

const LOG = '/home/p/.macs/panes/worker-1.log';
const alive = (pids: number[]) => (pid: number) => pids.includes(pid);

describe('decidePipe: one bridge reads a pane', () => {
  it.each([
    ['not piped: open', { piped: false, pipeTag: '' }, {}, { type: 'open' }],
    [
      'our own pipe (a restart after kill -9): keep',
      { piped: true, pipeTag: LOG, pipeOwner: 99 },
      {},
      { type: 'keep' },
    ],
    [
      'our own pipe into a replaced log: reopen',
      { piped: true, pipeTag: LOG },
      { force: true },
      { type: 'open', replacing: 'ours' },
    ],
    [
      "another log's pipe whose bridge is gone: take it",
      { piped: true, pipeTag: '/x/other.log', pipeOwner: 99 },
      {},
      { type: 'open', replacing: 'stale' },
    ],
    [
      "another log's pipe with no owner recorded (macs start opened it): take it",
      { piped: true, pipeTag: '/x/other.log' },
      {},
      { type: 'open', replacing: 'stale' },
    ],
  ])('%s', (_name, pane, options, expected) => {
    expect(
      decidePipe({ id: '%3', ...pane }, LOG, {
        ownPid: 10,
        isAlive: alive([10]),
        ...options,
      }),
    ).toEqual(expected);
  });

  it('refuses a pipe another live bridge reads, and one macs did not open', () => {
    expect(
      decidePipe(
        { id: '%3', piped: true, pipeTag: '/x/other.log', pipeOwner: 42 },
        LOG,
        { ownPid: 10, isAlive: alive([10, 42]) },
      ),
    ).toMatchObject({
      type: 'refuse',
      message: expect.stringContaining('another macs bridge (pid 42'),
    });
    expect(
      decidePipe({ id: '%3', piped: true, pipeTag: '' }, LOG, {
        ownPid: 10,
        isAlive: alive([10]),
      }),
    ).toMatchObject({
      type: 'refuse',
      hint: expect.stringContaining('tmux pipe-pane -t %3'),
    });
  });
});

describe('paneTagConflict: a pane tagged for one agent is never another', () => {
  it('allows an untagged pane and its own, and names the owner otherwise', () => {
    expect(paneTagConflict({ id: '%1', agentTag: '' }, 'a')).toBeUndefined();
    expect(paneTagConflict({ id: '%1', agentTag: 'a' }, 'a')).toBeUndefined();
    expect(paneTagConflict({ id: '%1', agentTag: 'b' }, 'a')?.message).toBe(
      "pane %1 belongs to agent 'b' (@macs_agent=b), not 'a'",
    );
  });
});
