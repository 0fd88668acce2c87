// A bridge checks that its tmux server still runs and stops with a clear
// error when it is gone. The check asks the server's socket first (no tmux
// command a second, issue 31) and tmux itself when the socket does not
// answer. With a control-mode connection (the bridge's), the check runs when
// that connection is lost, as it is at once when the server dies, and
// otherwise only every SERVER_BACKSTOP_MS: a socket connection each second
// was the largest part of an idle bridge's CPU. Strategy: a real private
// server; while it runs, the watch stays quiet (the socket answers) even
// when tmux itself is broken; once it is killed, the watch ends with the
// error naming it, with a control connection long before its backstop.
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors.js';
import { createTmuxClient } from '../../src/tmux/client.js';
import { createControlChannel } from '../../src/tmux/control.js';
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

  it('with a control connection, ends as soon as its client exits, not at the backstop', async () => {
    server = await startTmuxServer();
    const control = createControlChannel({
      socket: server.socket,
      env: childEnv(),
    });
    const lost: string[] = [];
    control.onDrop((reason) => lost.push(reason));
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
      { control },
    );
    await tmux.listPanes(); // the control client is attached
    // A backstop of an hour: only the lost connection can end the watch.
    const watch = watchTmuxServer(tmux, { backstopMs: 3_600_000 });
    await server.kill();
    const error: unknown = await watch.gone.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TmuxError);
    expect(lost.length).toBeGreaterThan(0);
    watch.stop();
    await tmux.close();
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
