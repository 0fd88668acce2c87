// Teammates' names and order (state/teammates.ts, session/teammates.ts):
// the agent name `<lead>.<teammate>` is a valid, file-safe agent name; the
// doors show `<lead>/<teammate>`, each lead's teammates right after it; a
// teammate's command line is read for its name and its lead's conversation.
import { describe, expect, it } from 'vitest';
import { teammateOfDialog } from '../../src/screen/teammate-dialog.js';
import { parseTeammateArgs } from '../../src/session/teammates.js';
import {
  groupUnderLeads,
  shownTeammateName,
  teammateAgentName,
  teammateInPane,
  type TeammateRecord,
} from '../../src/state/teammates.js';

describe('teammate names', () => {
  it('makes <lead>.<name>, file-safe, and shows <lead>/<name>', () => {
    expect(teammateAgentName('worker-1', 'alice')).toBe('worker-1.alice');
    expect(teammateAgentName('worker-1', 'code reviewer')).toBe(
      'worker-1.code-reviewer',
    );
    expect(teammateAgentName('worker-1', '')).toBeUndefined();
    expect(teammateAgentName('worker-1', 'x'.repeat(64))).toBeUndefined();
    expect(shownTeammateName({ lead: 'worker-1', name: 'alice' })).toBe(
      'worker-1/alice',
    );
  });

  it('reads a teammate from its command line, and nothing from another', () => {
    expect(
      parseTeammateArgs([
        'claude',
        '--agent-id',
        'alice@session-1',
        '--agent-name',
        'alice',
        '--team-name=session-1',
        '--parent-session-id',
        'abc',
      ]),
    ).toEqual({ name: 'alice', parentSession: 'abc', team: 'session-1' });
    expect(parseTeammateArgs(['claude', '--agent-name', 'alice'])).toBe(
      undefined,
    );
    expect(parseTeammateArgs(['sleep', '100'])).toBeUndefined();
  });
});

describe('teammates at the doors', () => {
  it("lists each lead's teammates right after it", () => {
    const tm = (lead: string) => ({ teammate: { lead } });
    const names = groupUnderLeads([
      { name: 'worker-1' },
      { name: 'worker-1-x' },
      { name: 'worker-1.alice', ...tm('worker-1') },
      { name: 'worker-2' },
      { name: 'worker-2.bob', ...tm('worker-2') },
      { name: 'gone.carol', ...tm('gone') },
    ]).map((a) => a.name);
    expect(names).toEqual([
      'worker-1',
      'worker-1.alice',
      'worker-1-x',
      'worker-2',
      'worker-2.bob',
      'gone.carol',
    ]);
  });

  it('finds the live teammate of a lead by its pane', () => {
    const record = (pane: string, endedAt?: string): TeammateRecord => ({
      agent: `w.${pane}`,
      lead: 'w',
      name: pane,
      pane,
      parentSession: 's',
      adoptedAt: '2026-01-01T00:00:00.000Z',
      ...(endedAt ? { endedAt } : {}),
    });
    const list = [record('%1'), record('%2', '2026-01-01T00:01:00.000Z')];
    expect(teammateInPane(list, 'w', '%1')?.agent).toBe('w.%1');
    expect(teammateInPane(list, 'w', '%2')).toBeUndefined();
    expect(teammateInPane(list, 'other', '%1')).toBeUndefined();
    expect(teammateInPane(list, 'w', undefined)).toBeUndefined();
  });
});

describe("a teammate's permission prompt on its lead's screen", () => {
  it('names the teammate from the first line, and no one for the lead', () => {
    expect(
      teammateOfDialog(
        'Bash command · from the bob agent\n\n  touch bob.txt\n\nDo you want to proceed?\n❯ 1. Yes\n  2. No',
      ),
    ).toBe('bob');
    expect(
      teammateOfDialog(
        'Bash command\n\n  touch x\n\nDo you want to proceed?\n❯ 1. Yes',
      ),
    ).toBeUndefined();
  });
});
