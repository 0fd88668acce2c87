// Discovery by program looks at what runs in each pane: an npm-installed
// agent's pane command is `node`, its process tree runs the agent.
import { describe, expect, it } from 'vitest';
import { choosePane } from '../../src/session/discover.js';
import type { PaneInfo } from '../../src/tmux/formats.js';
import type { ProcessInfo } from '../../src/tmux/processes.js';

function pane(id: string, fields: Partial<PaneInfo> = {}): PaneInfo {
  return {
    id,
    pid: Number(id.slice(1)) * 100,
    dead: false,
    deadStatus: undefined,
    inMode: false,
    width: 80,
    height: 24,
    piped: false,
    currentCommand: 'node',
    title: 'host',
    windowName: 'zsh',
    sessionName: 'work',
    agentTag: '',
    pipeTag: '',
    ...fields,
  };
}

const proc = (pid: number, ppid: number, ...argv: string[]): ProcessInfo => ({
  pid,
  ppid,
  argv,
});

// %1: npm's gemini and its relaunched child; %2: npm's codex and its binary;
// %3: a shell running a node script of its own.
const panes = [pane('%1'), pane('%2'), pane('%3', { currentCommand: 'bash' })];
const processes = new Map<string, ProcessInfo[]>([
  [
    '%1',
    [
      proc(100, 1, 'node', '/n/bin/gemini'),
      proc(101, 100, 'node', '--max-old-space-size=4096', '/n/gemini.js'),
    ],
  ],
  [
    '%2',
    [
      proc(200, 1, 'node', '/n/@openai/codex/bin/codex.js'),
      proc(201, 200, '/n/vendor/codex/codex'),
    ],
  ],
  ['%3', [proc(300, 1, '-bash'), proc(301, 300, 'node', 'server.js')]],
]);

describe('pane discovery by program through the process tree', () => {
  it('finds an npm-installed agent whose pane command is node', () => {
    expect(
      choosePane({ agent: 'worker-1', panes, program: 'gemini', processes }),
    ).toEqual({ type: 'found', pane: '%1', rule: 'command' });
    expect(
      choosePane({ agent: 'worker-2', panes, program: 'codex', processes }),
    ).toEqual({ type: 'found', pane: '%2', rule: 'command' });
  });

  it('only untagged, live panes count', () => {
    const tagged = [pane('%1', { agentTag: 'other' }), ...panes.slice(1)];
    expect(
      choosePane({
        agent: 'worker-1',
        panes: tagged,
        program: 'gemini',
        processes,
      }),
    ).toEqual({ type: 'none' });
    const dead = [pane('%1', { dead: true }), ...panes.slice(1)];
    expect(
      choosePane({
        agent: 'worker-1',
        panes: dead,
        program: 'gemini',
        processes,
      }).type,
    ).toBe('none');
  });

  it('two panes running the program are ambiguous', () => {
    const two = new Map(processes);
    two.set('%3', [proc(300, 1, '-bash'), proc(301, 300, 'gemini')]);
    expect(
      choosePane({
        agent: 'worker-1',
        panes,
        program: 'gemini',
        processes: two,
      }),
    ).toMatchObject({ type: 'ambiguous', rule: 'command' });
  });

  it('node alone is no program of an agent', () => {
    expect(
      choosePane({ agent: 'worker-1', panes, program: 'aider', processes }),
    ).toEqual({ type: 'none' });
  });
});
