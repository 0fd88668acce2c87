// A bridge checks every second that its tmux server still runs and stops
// with a clear error when it is gone. The check asks the server's socket
// first (no tmux command a second, issue 31) and tmux itself when the
// socket does not answer. Strategy: a real private server; while it runs,
// the watch stays quiet (the socket answers) even when tmux itself is
// broken; once it is killed, the watch ends with the error naming it.
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors.js';
import { createTmuxClient } from '../../src/tmux/client.js';
import { createRunTmux, type RunTmux } from '../../src/tmux/run.js';
import {
  SERVER_CHECK_MS,
  watchTmuxServer,
} from '../../src/tmux/server-watch.js';
import {
  childEnv,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';

describe('watchTmuxServer', () => {
  let server: TestTmuxServer | undefined;
  afterEach(async () => {
    await server?.kill();
    server = undefined;
  });

  it('stays quiet on a running server without asking tmux', async () => {
    server = await startTmuxServer();
    let asked = 0;
    // A tmux that fails every command: only the socket can say it runs.
    const broken: RunTmux = () => {
      asked += 1;
      return Promise.resolve({ exitCode: 1, stdout: '', stderr: 'no' });
    };
    const watch = watchTmuxServer(createTmuxClient(server.socket, broken));
    let ended = false;
    watch.gone.catch(() => (ended = true));
    // Nothing to wait for: quiet is what is checked, over three checks' time.
    await new Promise((resolve) => setTimeout(resolve, 3 * SERVER_CHECK_MS));
    watch.stop();
    expect(ended).toBe(false);
    expect(asked).toBe(0);
  });

  it('ends with an error naming the server once it is killed', async () => {
    server = await startTmuxServer();
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
    );
    const watch = watchTmuxServer(tmux);
    await server.kill();
    const error: unknown = await watch.gone.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TmuxError);
    expect(String((error as Error).message)).toContain(server.socket);
    watch.stop();
    await tmux.close();
  });
});
