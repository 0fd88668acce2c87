// The send path (issue 29): `macs send` into a bash agent at its prompt, as
// a whole command (node's start, finding the agent, the wait for the shell
// to be seen at its prompt, typing, the submit key and its confirmation),
// beside two floors measured in the same run: `macs --version` (node and
// macs loading, nothing else) and a bare `tmux send-keys` of the same text.
// Also how soon `macs send` to a busy shell says what it waits for (it was
// silent for up to 600 s).
import { spawn, spawnSync } from 'node:child_process';
import {
  MACS,
  env,
  now,
  round,
  spawnPane,
  startServer,
  stats,
  tempHome,
  waitUntil,
} from './lib.mjs';

function timed(command, args, options) {
  const t0 = now();
  const result = spawnSync(command, args, { ...options, stdio: 'ignore' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
  return now() - t0;
}

/** Time from `macs send` to its first line on stderr (a busy shell). */
function firstWord(args, options) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(process.execPath, [MACS, ...args], {
      ...options,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = false;
    child.stderr.on('data', (chunk) => {
      if (said || !String(chunk).includes('waiting for')) return;
      said = true;
      resolve(now() - t0);
    });
    child.on('exit', () => {
      if (!said) reject(new Error('macs send said nothing while it waited'));
    });
  });
}

export async function benchSend({ runs }) {
  const { home, remove } = tempHome('send');
  const server = startServer();
  const options = {
    cwd: home,
    env: env({ MACS_HOME: home, MACS_TMUX_SOCKET: server.socket }),
  };
  try {
    const pane = spawnPane(server, ['bash', '--norc', '--noprofile']);
    server.tmux('set-option', '-p', '-t', pane, '@macs_agent', 'w');
    await waitUntil(
      () => /[$#] ?$/m.test(server.tmux('capture-pane', '-p', '-t', pane)),
      10_000,
      'the shell at its prompt',
    );
    const send = [];
    const version = [];
    const sendKeys = [];
    for (let i = 0; i < runs; i += 1) {
      // A comment line: the shell takes it and is back at its prompt at once.
      send.push(
        timed(process.execPath, [MACS, 'send', 'w', `# bench ${i}`], options),
      );
      version.push(timed(process.execPath, [MACS, '--version'], options));
      sendKeys.push(
        timed(
          'tmux',
          ['-L', server.socket, 'send-keys', '-t', pane, '-l', `# keys ${i}`],
          options,
        ) +
          timed(
            'tmux',
            ['-L', server.socket, 'send-keys', '-t', pane, 'Enter'],
            options,
          ),
      );
    }
    server.tmux('send-keys', '-t', pane, '-l', 'sleep 30');
    server.tmux('send-keys', '-t', pane, 'Enter');
    await waitUntil(
      () =>
        server
          .tmux('display', '-p', '-t', pane, '#{pane_current_command}')
          .trim() === 'sleep',
      10_000,
      'sleep running',
    );
    const busy = [];
    for (let i = 0; i < Math.min(runs, 3); i += 1)
      busy.push(
        await firstWord(
          ['send', 'w', 'never typed', '--timeout', '1'],
          options,
        ),
      );
    const s = stats(send);
    const v = stats(version);
    return {
      runs,
      sendMs: s,
      versionMs: v,
      sendKeysMs: stats(sendKeys),
      sendOverVersionP50: round(s.p50 / v.p50),
      busyFirstWordMs: stats(busy),
    };
  } finally {
    server.kill();
    remove();
  }
}
