import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_RULES } from '../../src/typist/typist.js';
import type { DeliveryRequest } from '../../src/typist/typist.js';
import {
  canTypeInto,
  shellTakesInput,
  waitingTypeable,
  waitTypeable,
} from '../../src/typist/wait-typeable.js';
import type { AgentStateName } from '../../src/config/states.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

const POLL_MS = 2;

/** `states` are read in turn (then `idle`); a single state is read for ever. */
function setup(
  states: AgentStateName[] | AgentStateName,
  extra: Partial<DeliveryRequest> = {},
) {
  const tmux = new FakeTmuxClient();
  const pane = tmux.addPane({ id: '%1' });
  let reads = 0;
  const request: DeliveryRequest = {
    pane: '%1',
    text: 'hello',
    rules: DEFAULT_DELIVERY_RULES,
    readState: () => {
      reads += 1;
      return Promise.resolve(
        typeof states === 'string' ? states : (states.shift() ?? 'idle'),
      );
    },
    ...extra,
  };
  return { tmux, pane, request, reads: () => reads };
}

describe('canTypeInto', () => {
  it.each([
    ['idle', true, true],
    ['idle', false, true],
    ['unknown', true, true],
    ['unknown', false, false],
    ['working', true, false],
    ['approval', true, false],
    ['error', true, false],
    ['dead', true, false],
  ] as const)('%s (typeIntoUnknown %s): %s', (state, unknownOk, expected) => {
    expect(canTypeInto(state, unknownOk)).toBe(expected);
  });

  it('types into unknown unless told otherwise', () => {
    expect(canTypeInto('unknown')).toBe(true);
  });
});

describe('waitTypeable', () => {
  it('waits out working and approval, then says whether to leave a mode', async () => {
    const { tmux, pane, request, reads } = setup([
      'working',
      'approval',
      'idle',
    ]);
    pane.inMode = true;
    expect(await waitTypeable(tmux, request, Date.now(), POLL_MS)).toEqual({
      inMode: true,
    });
    expect(reads()).toBe(3);
  });

  it('says gone for a dead agent or a dead pane', async () => {
    const dead = setup(['dead']);
    expect(
      await waitTypeable(dead.tmux, dead.request, Date.now(), POLL_MS),
    ).toBe('gone');
    const deadPane = setup(['idle']);
    deadPane.pane.dead = true;
    expect(
      await waitTypeable(deadPane.tmux, deadPane.request, Date.now(), POLL_MS),
    ).toBe('gone');
  });

  it('waits while a person has paused delivery', async () => {
    let paused = 3;
    const { tmux, request, reads } = setup([], {
      isPaused: () => (paused -= 1) >= 0,
    });
    expect(await waitTypeable(tmux, request, Date.now(), POLL_MS)).toEqual({
      inMode: false,
    });
    expect(reads()).toBe(4);
  });

  it('reports a long wait once, and stops when aborted', async () => {
    const abort = new AbortController();
    const reported: [AgentStateName, number][] = [];
    const { tmux, request } = setup('working', {
      deliverTimeoutMs: 5,
      signal: abort.signal,
    });
    setTimeout(() => abort.abort(), 40);
    const waiting = waitingTypeable(tmux, request, Date.now(), POLL_MS);
    let next = await waiting.next();
    while (next.done !== true) {
      if (next.value.phase === 'busy')
        reported.push([next.value.state, next.value.waitedMs]);
      next = await waiting.next();
    }
    expect(next.value).toBe('aborted');
    expect(reported).toHaveLength(1);
    expect(reported[0]?.[0]).toBe('working');
    expect(reported[0]?.[1]).toBeGreaterThan(5);
  });

  it("never types into a known agent's unknown screen", async () => {
    const abort = new AbortController();
    const { tmux, request, reads } = setup('unknown', {
      rules: { ...DEFAULT_DELIVERY_RULES, typeIntoUnknown: false },
      signal: abort.signal,
    });
    setTimeout(() => abort.abort(), 30);
    expect(await waitTypeable(tmux, request, Date.now(), POLL_MS)).toBe(
      'aborted',
    );
    expect(reads()).toBeGreaterThan(1);
  });

  it('types into an unknown screen once it has stayed the same for unknownQuietMs', async () => {
    const { tmux, pane, request } = setup('unknown', { unknownQuietMs: 30 });
    let changes = 0;
    const ticker = setInterval(() => {
      if (changes < 3) pane.screen = `output ${(changes += 1)}\n`;
    }, 5);
    const started = Date.now();
    try {
      expect(await waitTypeable(tmux, request, started, POLL_MS)).toEqual({
        inMode: false,
      });
    } finally {
      clearInterval(ticker);
    }
    expect(changes).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
  });
});

// Issue 25, point 3: a shell agent running `sleep 20` was typed into, since
// its screen shows no sign of the command. Whether a shell takes input is
// judged from what runs in its terminal's foreground.
describe('shellTakesInput', () => {
  it.each([
    ['bash', undefined, true],
    ['-bash', [['-bash']], true],
    ['sleep', [['sleep', '20']], false],
    ['sleep', undefined, false],
    ['vim', [['vim', 'notes.txt']], false],
    // A nested interactive shell at its prompt takes commands.
    ['bash', [['bash', '--norc', '--noprofile']], true],
    ['zsh', [['/usr/bin/zsh', '-l']], true],
    ['bash', [['bash', '--rcfile', 'my.rc']], true],
    // A shell running a script or a command string is busy.
    ['bash', [['bash', 'build.sh']], false],
    ['bash', [['bash', '-c', 'make']], false],
    ['sh', [['sh', '-ec', 'make']], false],
    ['bash', [['bash', '--', 'x.sh']], false],
    // A pipeline of shells and programs.
    ['bash', [['bash'], ['grep', 'x']], false],
    // The foreground could not be read: tmux's word alone.
    ['bash', [], true],
  ] as const)('%s with foreground %j: %s', (command, fg, expected) => {
    expect(
      shellTakesInput(
        command,
        fg === undefined ? undefined : fg.map((argv) => ({ argv: [...argv] })),
      ),
    ).toBe(expected);
  });
});
