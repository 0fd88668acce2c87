// Regression (issue 25, point 1): in a real terminal the view must never be
// taller than the terminal less one line, nor a line wider than it: a frame
// that fills the terminal scrolls its header away, and a line one column too
// wide wraps, and from then on ink's idea of where its lines are is wrong
// (rows drawn twice, rows gone). The answer box at 60x15 was 7 lines in a
// panel of 5 (its title wrapped, its tip was always drawn), the requests
// title wrapped on narrow terminals.
//
// Strategy: render the view at many sizes in each of its modes (browsing,
// answering with a long answer, the help, the detail) and check every frame
// fits. The integration test status-screen checks the same in real tmux panes.
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/App.js';
import { KEYS, renderInk } from '../helpers/render.js';
import {
  NOW,
  ago,
  createFixedSource,
  makeAgent,
  makeEvent,
  makeRequest,
  makeSnapshot,
  recordingIntents,
} from './fixtures.js';

const agents = Array.from({ length: 7 }, (_, i) =>
  makeAgent({
    name: i === 6 ? 'a-worker-with-a-very-long-name' : `worker-${i + 1}`,
    pane: `%${i + 3}`,
    state: i % 3 === 0 ? 'working' : 'idle',
    stateSince: ago(1000 * (i + 1) * 17),
    paused: i === 2,
    lastRoundTripMs: i * 900,
  }),
);
const requests = Array.from({ length: 5 }, (_, i) =>
  makeRequest({
    id: `worker-${i + 1}-q${i}`,
    agent: `worker-${i + 1}`,
    workerId: `q${i}`,
    waitingForPerson: i !== 3,
    priority: i === 1 ? 'high' : 'normal',
    body: `${'Should I migrate the users table now or after the API change? '.repeat(3)}\nSecond line\nThird line`,
  }),
);
const events = Array.from({ length: 30 }, (_, i) =>
  makeEvent({
    ts: ago(100_000 - i * 1000),
    agent: `worker-${(i % 7) + 1}`,
    type: i % 2 ? 'state.changed' : 'request.delivered',
    requestId: i % 2 ? null : `worker-1-q${i}`,
    data:
      i % 2
        ? { from: 'idle', to: 'working', source: 'screen' }
        : { method: 'paste', chars: 42, waitedMs: 1500 },
  }),
);
// Two requests refused for their size: rows of the request list too.
const refused = [0, 1].map((i) => ({
  agent: `worker-${i + 1}`,
  reason: i ? ('max-bytes' as const) : ('max-lines' as const),
  at: ago(50_000 - i * 1000),
  firstLine: '<<CONTROLLER_REQUEST id=a-rather-long-request-id type=question>>',
  lines: 501,
  bytes: 65_537,
  message: null,
}));
const snapshot = makeSnapshot({ agents, requests, events, refused });

const WIDTHS = [20, 27, 33, 44, 60, 80, 100];
const HEIGHTS = [5, 6, 7, 9, 12, 15, 17, 18, 24, 40];
const MODES: Record<string, string[]> = {
  browsing: [],
  answering: ['r', 'a long answer, '.repeat(40), KEYS.enter, 'more'],
  help: ['?'],
  detail: [KEYS.enter],
};

describe('the status view fits its terminal', () => {
  for (const [mode, keys] of Object.entries(MODES))
    it(`${mode}: fewer lines than the terminal has, none wider than it`, async () => {
      const bad: string[] = [];
      for (const columns of WIDTHS)
        for (const rows of HEIGHTS) {
          const { intents } = recordingIntents();
          const view = await renderInk(
            <App
              source={createFixedSource(snapshot)}
              intents={intents}
              now={NOW}
              columns={columns}
              rows={rows}
              timeZone="UTC"
            />,
          );
          await view.press(...keys);
          const lines = view.frame().split('\n');
          const wide = lines.filter((l) => [...l].length > columns);
          if (lines.length >= rows || wide.length > 0)
            bad.push(
              `${columns}x${rows}: ${lines.length} lines${wide.length ? `, ${wide.length} too wide` : ''}\n${view.frame()}`,
            );
          view.unmount();
        }
      expect(bad).toEqual([]);
    });
});
