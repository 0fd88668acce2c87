// Issue 32: the web page showed an adopted Claude Code teammate by its agent
// name (`worker-1.alice`) and sorted it among the agents by that name, a
// teammate waiting for a person even before its lead; `macs status` shows it
// as `<lead>/<teammate>` right under its lead. Strategy: the page's order
// and names are a pure function of the snapshot's agents: a lead's group
// (the lead, then its teammates) stays together, the group comes first when
// any of it waits for a person, and a teammate is named `<lead>/<teammate>`.
import { describe, expect, it } from 'vitest';
import { cardName, orderAgentCards } from '../../src/web/page/agent-order.js';
import { makeAgent } from '../ui/fixtures.js';

const teammate = (lead: string, name: string, waiting = 0) =>
  makeAgent({
    name: `${lead}.${name}`,
    teammate: { lead, name, shownAs: `${lead}/${name}`, team: null },
    counts: { ...makeAgent().counts, waitingForPerson: waiting },
  });

describe('the page’s agent cards: order and names', () => {
  it('keeps each lead’s teammates under it; a group waiting for you comes first', () => {
    const agents = [
      makeAgent({ name: 'worker-1' }),
      teammate('worker-2', 'bob'),
      teammate('worker-1', 'alice'),
      makeAgent({ name: 'worker-2' }),
      teammate('worker-2', 'alice', 1),
      makeAgent({ name: 'worker-10' }),
    ];
    expect(orderAgentCards(agents).map(cardName)).toEqual([
      'worker-2',
      'worker-2/alice',
      'worker-2/bob',
      'worker-1',
      'worker-1/alice',
      'worker-10',
    ]);
  });

  it('a teammate whose lead is not listed stands on its own, by its name', () => {
    const agents = [makeAgent({ name: 'worker-3' }), teammate('gone', 'carol')];
    expect(orderAgentCards(agents).map(cardName)).toEqual([
      'gone/carol',
      'worker-3',
    ]);
  });
});
