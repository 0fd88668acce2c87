// Colour is the point here, so colours are forced on before ink loads.
import { describe, expect, it, vi } from 'vitest';
import {
  NOW,
  createFixedSource,
  makeAgent,
  makeRequest,
  makeSnapshot,
  recordingIntents,
} from './fixtures.js';

vi.stubEnv('FORCE_COLOR', '1');

const YELLOW = '\u001b[33m';
const CYAN = '\u001b[36m';
const RED = '\u001b[31m';

describe('status colours on screen', () => {
  it('an agent in approval is yellow, a working one cyan, a dead one red; a request waiting for you is yellow', async () => {
    const { render } = await import('ink-testing-library');
    const { App } = await import('../../src/ui/App.js');
    const snapshot = makeSnapshot({
      agents: [
        makeAgent({ name: 'a-approval', state: 'approval' }),
        makeAgent({ name: 'b-working', state: 'working' }),
        makeAgent({ name: 'c-dead', state: 'dead' }),
      ],
      requests: [makeRequest()],
    });
    const { lastFrame } = render(
      <App
        source={createFixedSource(snapshot)}
        intents={recordingIntents().intents}
        now={NOW}
        columns={100}
        rows={30}
      />,
    );
    const line = (text: string) =>
      (lastFrame() ?? '').split('\n').find((l) => l.includes(text)) ?? '';
    expect(line('a-approval')).toMatch(
      new RegExp(`\\u001b\\[33m(\\u001b\\[1m)?approval`),
    );
    expect(line('b-working')).toContain(`${CYAN}`);
    expect(line('c-dead')).toContain(`${RED}`);
    expect(line('Should I migrate')).toContain(YELLOW);
    expect(line('Should I migrate')).toContain('●');
  });
});
