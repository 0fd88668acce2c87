import { describe, expect, it } from 'vitest';
import { choosePane, containsName } from '../../src/session/discover.js';
import type { PaneInfo } from '../../src/tmux/formats.js';

function pane(id: string, fields: Partial<PaneInfo> = {}): PaneInfo {
  return {
    id,
    pid: 1,
    dead: false,
    deadStatus: undefined,
    inMode: false,
    width: 80,
    height: 24,
    piped: false,
    currentCommand: 'bash',
    title: 'host',
    windowName: 'zsh',
    sessionName: 'work',
    agentTag: '',
    pipeTag: '',
    ...fields,
  };
}

describe('pane discovery (SPEC §5)', () => {
  const panes = [
    pane('%1', { agentTag: 'worker-1' }),
    pane('%2', { title: 'macs worker-2' }),
    pane('%3', { windowName: 'worker-2-logs' }),
    pane('%4', { currentCommand: 'codex' }),
    pane('%5', { currentCommand: 'codex', dead: true }),
  ];

  it.each([
    [
      'a pinned pane first',
      { agent: 'worker-1', pinned: '%4' },
      { type: 'found', pane: '%4', rule: 'pinned' },
    ],
    [
      'then the @macs_agent tag',
      { agent: 'worker-1', program: 'codex' },
      { type: 'found', pane: '%1', rule: 'tag' },
    ],
    [
      'then a title with the name',
      { agent: 'worker-2' },
      { type: 'found', pane: '%2', rule: 'title' },
    ],
    [
      'then the preset program (live panes only)',
      { agent: 'worker-9', program: 'codex' },
      { type: 'found', pane: '%4', rule: 'command' },
    ],
    ['nothing', { agent: 'worker-9' }, { type: 'none' }],
    [
      'a pin that is gone falls through and is reported',
      { agent: 'worker-9', pinned: '%99' },
      { type: 'none', pinnedMissing: '%99' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(choosePane({ panes, ...input })).toEqual(expected);
  });

  it('is an error listing the candidates when a rule matches several panes', () => {
    const result = choosePane({
      agent: 'api',
      panes: [
        pane('%1', { agentTag: 'api' }),
        pane('%2', { agentTag: 'api' }),
        pane('%3', { title: 'api' }),
      ],
    });
    expect(result.type).toBe('ambiguous');
    expect(
      result.type === 'ambiguous' && result.candidates.map((p) => p.id),
    ).toEqual(['%1', '%2']);
    expect(
      choosePane({
        agent: 'x',
        program: 'codex',
        panes: [
          pane('%1', { currentCommand: 'codex' }),
          pane('%2', { currentCommand: 'codex' }),
        ],
      }).type,
    ).toBe('ambiguous');
  });

  // Regression (issue 12, reproduction 1): when worker-1's pane was killed,
  // discovery "by program" took worker-2's pane, tagged @macs_agent=worker-2,
  // and the bridge filed worker-2's requests under worker-1. A pane tagged
  // for one agent must never be found for another, by any rule.
  it('never picks a pane tagged for another agent, by title or by program', () => {
    const tagged = [
      pane('%2', { agentTag: 'worker-2', currentCommand: 'bash' }),
      pane('%3', { agentTag: 'worker-3', title: 'worker-1 logs' }),
    ];
    expect(
      choosePane({ agent: 'worker-1', program: 'bash', panes: tagged }),
    ).toEqual({ type: 'none' });
    expect(
      choosePane({
        agent: 'worker-1',
        program: 'bash',
        panes: [...tagged, pane('%4', { currentCommand: 'bash' })],
      }),
    ).toEqual({ type: 'found', pane: '%4', rule: 'command' });
  });

  it('refuses a pin on a pane tagged for another agent', () => {
    expect(
      choosePane({
        agent: 'worker-1',
        pinned: '%2',
        panes: [pane('%2', { agentTag: 'worker-2' })],
      }),
    ).toEqual({ type: 'taken', pane: '%2', owner: 'worker-2' });
  });

  it('looks only at its pin and tag when told to (an agent that died)', () => {
    const result = choosePane({
      agent: 'worker-1',
      program: 'bash',
      rules: ['pinned', 'tag'],
      panes: [pane('%4', { currentCommand: 'bash', title: 'worker-1' })],
    });
    expect(result).toEqual({ type: 'none' });
  });

  it.each([
    ['macs worker-1', 'worker-1', true],
    ['worker-1', 'worker-1', true],
    ['[worker-1]', 'worker-1', true],
    ['worker-10', 'worker-1', false],
    ['my-worker-1', 'worker-1', false],
    ['worker-1.log worker-1', 'worker-1', true],
  ])('%j contains the name %j as a word: %s', (text, name, expected) => {
    expect(containsName(text, name)).toBe(expected);
  });
});
