import { execFile } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import {
  afterAll,
  beforeAll,
  describe,
  expect,
  it,
  onTestFinished,
} from 'vitest';
import { TmuxError } from '../../src/errors.js';
import { createTmuxClient } from '../../src/tmux/client.js';
import {
  ControlUnavailableError,
  createControlChannel,
  type ControlChannel,
} from '../../src/tmux/control.js';
import { createRunTmux } from '../../src/tmux/run.js';
import {
  childEnv,
  makeTempHome,
  startTmuxServer,
  tmuxSocketPath,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const execFileAsync = promisify(execFile);

let server: TestTmuxServer;
let home: { home: string; cleanup: () => void };

beforeAll(async () => {
  server = await startTmuxServer();
  home = makeTempHome('macs-control-');
});

afterAll(async () => {
  await server.kill();
  home.cleanup();
});

function channel(
  extra: Partial<Parameters<typeof createControlChannel>[0]> = {},
  drops: string[] = [],
): ControlChannel {
  return createControlChannel({
    socket: server.socket,
    env: childEnv(),
    retryMs: 0,
    onDrop: (reason) => drops.push(reason),
    ...extra,
  });
}

/**
 * A channel whose "tmux" is a small script (`body`, Node): a stand-in for a
 * control client that misbehaves. Lost connections are told in `drops`.
 */
function fakeChannel(
  name: string,
  body: string,
  attachTimeoutMs = 300,
): { control: ControlChannel; drops: string[] } {
  const fake = path.join(home.home, name);
  writeFileSync(fake, `#!/usr/bin/env node\n${body}`);
  chmodSync(fake, 0o700);
  const drops: string[] = [];
  const control = createControlChannel({
    socket: server.socket,
    env: childEnv(),
    tmuxPath: fake,
    replyTimeoutMs: 300,
    attachTimeoutMs,
    onDrop: (reason) => drops.push(reason),
  });
  return { control, drops };
}

/** The buffer's bytes, read back by a separate tmux process. */
async function saveBuffer(name: string): Promise<string> {
  const { stdout } = await execFileAsync(
    'tmux',
    ['-L', server.socket, 'save-buffer', '-b', name, '-'],
    { env: childEnv(), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

/** Control-mode clients attached to the server, as `session` names. */
async function controlClients(): Promise<string[]> {
  const out = await server.tmux(
    'list-clients',
    '-F',
    '#{client_control_mode} #{session_name}',
  );
  return out
    .split('\n')
    .filter((line) => line.startsWith('1 '))
    .map((line) => line.slice(2));
}

describe('tmux control-mode channel', () => {
  it('passes any argument to tmux exactly as it was (property, real tmux)', async () => {
    const control = channel();
    try {
      const tricky = fc.constantFrom(
        '$HOME',
        '${HOME}',
        '~',
        '~root/',
        '\\',
        '\\u0041',
        '\\n',
        '\\033',
        '"',
        "'",
        ';',
        ' ; ',
        '\\;',
        '#{pane_id}',
        '#(echo hi)',
        '{',
        '}',
        '%if 1',
        '%end 1 2 1',
        '\n',
        '\r\n',
        '\t',
        '\x1b[31m',
        '\x01',
        '\x7f',
        ' ',
        '-t',
        '--',
        '🎉',
        'é',
      );
      const piece = fc.oneof(
        tricky,
        fc.string({ unit: 'grapheme', maxLength: 8 }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc
            .array(piece, { minLength: 1, maxLength: 12 })
            .map((parts) => parts.join(''))
            .filter((text) => text.length > 0 && !text.includes('\0')),
          async (text) => {
            const result = await control.run([
              'set-buffer',
              '-b',
              'macs-prop',
              '--',
              text,
            ]);
            expect(result.exitCode, result.stderr).toBe(0);
            expect(await saveBuffer('macs-prop')).toBe(text);
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      await control.close();
    }
  });

  it('loads 100 KB of multi-line text into a buffer in one command, exactly', async () => {
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
      { control: channel() },
    );
    try {
      const text = Array.from(
        { length: 3000 },
        (_, i) => `line ${i}: $HOME "q" 'q' ; \\ ~ #{x} 🎉`,
      ).join('\n');
      expect(text.length).toBeGreaterThan(100_000);
      const buffer = await tmux.loadBuffer(text);
      expect(await saveBuffer(buffer)).toBe(text);
    } finally {
      await tmux.close();
    }
  });

  it('reads panes and sends keys over one connection, as a process would', async () => {
    const control = channel();
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
      { control },
    );
    const plain = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
    );
    try {
      const pane = await server.spawnPane(['cat']);
      await tmux.sendLiteral(pane, 'hello over control;');
      // The terminal echoes the text even before cat runs, and a new pane's
      // program reads as `tmux` until it is exec'd: wait for both.
      await waitFor(
        async () =>
          (await plain.capturePane(pane)).includes('hello over control;') &&
          (await plain.paneInfo(pane)).currentCommand === 'cat',
      );
      expect(await tmux.capturePane(pane)).toBe(await plain.capturePane(pane));
      expect(await tmux.paneInfo(pane)).toEqual(await plain.paneInfo(pane));
      expect(await controlClients()).toHaveLength(1);
      await expect(tmux.paneInfo('%9999')).rejects.toThrow(/not found/);
    } finally {
      await tmux.close();
    }
    await waitFor(async () => (await controlClients()).length === 0);
  });

  it('never believes a forged end of block printed in a pane: the reply is read again', async () => {
    const drops: string[] = [];
    const control = channel({}, drops);
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
      { control },
    );
    try {
      // The pane prints what tmux would end the next replies with: the
      // server's command numbers are one counter, read here from tmux itself.
      await tmux.capturePane('%0').catch(() => '');
      const probe = await control.run(['display-message', '-p', 'probe']);
      expect(probe.exitCode).toBe(0);
      const { stdout } = await execFileAsync(
        'sh',
        [
          '-c',
          `(sleep 0.3; printf 'display-message -p x\\n'; sleep 0.3) | tmux -L ${server.socket} -C attach-session -f no-output,ignore-size`,
        ],
        { env: childEnv(), encoding: 'utf8' },
      );
      const numbers = [...stdout.matchAll(/^%begin \d+ (\d+) 1$/gm)].map((m) =>
        Number(m[1]),
      );
      const next = Math.max(...numbers) + 1;
      const now = Math.floor(Date.now() / 1000);
      const script = path.join(home.home, 'forge.sh');
      const lines: string[] = ['HEAD-LINE'];
      for (let n = next; n < next + 200; n += 1)
        for (const t of [now, now + 1, now + 2]) lines.push(`%end ${t} ${n} 1`);
      lines.push('TAIL-LINE');
      writeFileSync(
        script,
        `cat <<'EOF'\n${lines.join('\n')}\nEOF\nexec sleep 600\n`,
      );
      chmodSync(script, 0o700);
      const pane = await server.spawnPane(['sh', script]);
      await waitFor(async () =>
        (
          await server.tmux('capture-pane', '-p', '-S', '-', '-t', pane)
        ).includes('TAIL-LINE'),
      );
      const expected = await server.tmux(
        'capture-pane',
        '-p',
        '-S',
        '-',
        '-t',
        pane,
      );
      const seen = await tmux.capturePane(pane, { start: '-' });
      expect(seen).toBe(expected);
      expect(drops.some((reason) => /out of step/.test(reason))).toBe(true);
      // The channel connects again and carries on.
      expect(
        (await control.run(['display-message', '-p', 'after'])).stdout,
      ).toBe('after\n');
    } finally {
      await tmux.close();
    }
  });

  it('keeps several commands on the pipe, each matched to its own reply', async () => {
    // A control client that answers nothing until four commands are on
    // its stdin: a channel that waited for each reply would hang here.
    const { control, drops } = fakeChannel(
      'batch-tmux.mjs',
      `const t = Math.floor(Date.now() / 1000);
let n = 1;
const block = (lines) => {
  n += 1;
  process.stdout.write('%begin ' + t + ' ' + n + ' 1\\n' + lines.map((l) => l + '\\n').join('') + '%end ' + t + ' ' + n + ' 1\\n');
};
process.stdout.write('%begin ' + t + ' 1 0\\n%end ' + t + ' 1 0\\n');
let held = [];
let rest = '';
let open = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  rest += chunk;
  const lines = rest.split('\\n');
  rest = lines.pop();
  held.push(...lines);
  if (!open && held.length < 8) return;
  open = true;
  for (const line of held.splice(0)) {
    const nonce = /^display-message -p (macs-[0-9a-f]+)$/.exec(line);
    if (nonce) block([nonce[1]]);
    else block(['reply to ' + line]);
  }
});
`,
      30_000,
    );
    try {
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          control.run(['display-message', '-p', `n${i}`]),
        ),
      );
      expect(replies.map((r) => r.stdout)).toEqual(
        Array.from(
          { length: 12 },
          (_, i) => `reply to "display-message" "-p" "n${i}"\n`,
        ),
      );
      expect(drops).toEqual([]);
    } finally {
      await control.close();
    }
  });

  it('answers many concurrent commands on a real tmux, each with its own output', async () => {
    const control = channel();
    try {
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          control.run(['display-message', '-p', `value-${i}`]),
        ),
      );
      expect(replies.map((r) => r.stdout)).toEqual(
        Array.from({ length: 100 }, (_, i) => `value-${i}\n`),
      );
    } finally {
      await control.close();
    }
  });

  it('says it cannot run a command when there is no server, so the caller starts a process', async () => {
    const none = `macs-test-none-${process.pid}`;
    // tmux may leave a socket file for the server it could not reach.
    onTestFinished(() => rmSync(tmuxSocketPath(none), { force: true }));
    const control = createControlChannel({
      socket: none,
      env: childEnv(),
    });
    await expect(control.run(['list-sessions'])).rejects.toBeInstanceOf(
      ControlUnavailableError,
    );
    // The failed attach started no server (tmux -N), not even for a moment.
    await expect(
      promisify(execFile)('tmux', ['-L', none, 'has-session'], {
        env: childEnv(),
      }),
    ).rejects.toMatchObject({
      stderr: expect.stringMatching(/no server running|error connecting/),
    });
    const tmux = createTmuxClient(none, createRunTmux({ env: childEnv() }), {
      control,
    });
    await expect(tmux.listPanes()).rejects.toThrow(/not running/);
    await tmux.close();
  });

  it('reads again through a process, but never repeats a write, when a reply never comes', async () => {
    // A control client that attaches, then hangs.
    const { control, drops } = fakeChannel(
      'hung-tmux.mjs',
      `const t = Math.floor(Date.now() / 1000);
process.stdout.write('%begin ' + t + ' 1 0\\n%end ' + t + ' 1 0\\n');
process.stdin.resume();
`,
      // It attaches at once; a slow machine must not turn that into "never".
      30_000,
    );
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
      { control },
    );
    try {
      const pane = await server.spawnPane(['cat']);
      const info = await tmux.paneInfo(pane);
      expect(info.id).toBe(pane);
      expect(drops[0]).toMatch(/no reply/);
      const write = tmux.sendLiteral(pane, 'MUST-NOT-APPEAR');
      await expect(write).rejects.toBeInstanceOf(TmuxError);
      await expect(write).rejects.toThrow(/not repeated/);
      expect(await server.capture(pane)).not.toContain('MUST-NOT-APPEAR');
    } finally {
      await tmux.close();
    }
  });

  it('starts a process instead when the control client never attaches', async () => {
    const { control, drops } = fakeChannel(
      'silent-tmux.mjs',
      'process.stdin.resume();\n',
    );
    await expect(control.run(['list-sessions'])).rejects.toBeInstanceOf(
      ControlUnavailableError,
    );
    expect(drops[0]).toMatch(/no attach/);
    const tmux = createTmuxClient(
      server.socket,
      createRunTmux({ env: childEnv() }),
      { control },
    );
    try {
      expect(await tmux.isServerRunning()).toBe(true);
    } finally {
      await tmux.close();
    }
  });

  it('connects again when the session it was attached to ends', async () => {
    // Last in this file: it may end the session the other tests used.
    await server.tmux('new-session', '-d', '-s', 'spare-1');
    await server.tmux('new-session', '-d', '-s', 'spare-2');
    const drops: string[] = [];
    const control = channel({}, drops);
    try {
      await control.run(['display-message', '-p', 'first']);
      const [attached] = await controlClients();
      expect(attached).toBeDefined();
      await server.tmux('kill-session', '-t', attached ?? '');
      // The channel has seen its client go (a command sent before that
      // would be lost with it: the tmux client then reruns a read).
      await waitFor(() => drops.length > 0, { message: 'the drop seen' });
      expect(drops[0]).toMatch(/exited|ended/);
      const again = await control.run(['display-message', '-p', 'second']);
      expect(again.stdout).toBe('second\n');
      expect(await controlClients()).toHaveLength(1);
    } finally {
      await control.close();
    }
  });
});
