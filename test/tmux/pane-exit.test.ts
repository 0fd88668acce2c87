// readPaneExit on a real private tmux server (panes stay after their
// program ends: remain-on-exit is on there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPaneExit } from '../../src/tmux/pane-exit.js';
import {
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

let server: TestTmuxServer;
beforeAll(async () => {
  server = await startTmuxServer();
});
afterAll(() => server?.kill());

const client = {
  command: (args: readonly string[]) => server.tmux(...args),
};

async function deadPane(script: string): Promise<string> {
  const pane = await server.spawnPane(['sh', '-c', script]);
  await waitFor(
    async () =>
      (
        await server.tmux('display-message', '-p', '-t', pane, '#{pane_dead}')
      ).trim() === '1',
    { message: `pane ${pane} dead` },
  );
  return pane;
}

describe('readPaneExit', () => {
  it('gives the exit status of a program that exited', async () => {
    expect(await readPaneExit(client, await deadPane('exit 3'))).toEqual({
      exitCode: 3,
    });
  });

  it('gives a signal as 128 + N, with the signal', async () => {
    expect(await readPaneExit(client, await deadPane('kill -TERM $$'))).toEqual(
      { exitCode: 143, exitSignal: 15 },
    );
  });

  it('gives nothing for a pane that is gone, after its tries', async () => {
    expect(
      await readPaneExit(client, '%9999', { tries: 2, waitMs: 1 }),
    ).toEqual({});
  });
});
