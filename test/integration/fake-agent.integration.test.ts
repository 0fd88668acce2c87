import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  childEnv,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const execFileAsync = promisify(execFile);
const FAKE_AGENT = fileURLToPath(
  new URL('../fixtures/fake-agent.mjs', import.meta.url),
);

interface RecordedEvent {
  type: string;
  text?: string;
  bytes?: string;
  during?: 'idle' | 'busy';
  ts: number;
}

let server: TestTmuxServer | undefined;
let dir: string;
let recordFile: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'macs-fake-agent-'));
  recordFile = path.join(dir, 'record.jsonl');
});

afterEach(async () => {
  await server?.kill();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function readRecord(): RecordedEvent[] {
  if (!existsSync(recordFile)) return [];
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as RecordedEvent);
}

function submits(): RecordedEvent[] {
  return readRecord().filter((e) => e.type === 'submit');
}

async function startAgent(
  script: unknown[],
  extraArgs: string[] = [],
): Promise<string> {
  server = await startTmuxServer();
  const pane = await server.spawnPane([
    process.execPath,
    FAKE_AGENT,
    '--script-json',
    JSON.stringify(script),
    '--record',
    recordFile,
    ...extraArgs,
  ]);
  const tmux = server;
  await waitFor(
    async () => (await tmux.capture(pane)).includes('fake-agent ready'),
    {
      timeout: 15_000,
      message: 'fake agent prompt',
    },
  );
  return pane;
}

// load-buffer from stdin, then a bracketed paste that deletes the buffer.
async function paste(pane: string, text: string): Promise<void> {
  const tmux = server;
  if (!tmux) throw new Error('no tmux server');
  const loading = execFileAsync(
    'tmux',
    ['-L', tmux.socket, 'load-buffer', '-b', 'b1', '-'],
    {
      env: childEnv(),
    },
  );
  loading.child.stdin?.end(text);
  await loading;
  await tmux.tmux('paste-buffer', '-p', '-d', '-r', '-b', 'b1', '-t', pane);
}

describe('fake agent in a real tmux pane', () => {
  it('records one submit with exactly the pasted multi-line text', async () => {
    const pane = await startAgent([]);
    const text =
      'first line\n\tindented — ü 😀\n$HOME `x` "q" \'s\' \\n [[not a key]]\nlast';

    await paste(pane, text);
    await server?.tmux('send-keys', '-t', pane, 'Enter');

    await waitFor(() => submits().length > 0, { message: 'submit recorded' });
    expect(submits()).toEqual([
      expect.objectContaining({ type: 'submit', text, during: 'idle' }),
    ]);
    expect(readRecord().map((e) => e.type)).toEqual([
      'paste-start',
      'paste-end',
      'submit',
    ]);
    await waitFor(
      async () =>
        (await server?.capture(pane))?.includes(
          `ok: received ${[...text].length} chars`,
        ),
      { message: 'agent acknowledged' },
    );
  });

  it('reads a 40 KB paste that arrives in many reads', async () => {
    const pane = await startAgent([]);
    const line = `${'0123456789abcdef'.repeat(6)} é\n`;
    const text = line.repeat(Math.ceil(40_000 / line.length));

    await paste(pane, text);
    await server?.tmux('send-keys', '-t', pane, 'Enter');

    await waitFor(() => submits().length > 0, { message: 'submit recorded' });
    expect(submits()).toHaveLength(1);
    expect(submits()[0]?.text).toBe(text);
  });

  it('records input that arrives while busy, and ESC interrupts', async () => {
    const pane = await startAgent([{ busy: 60_000 }]);
    await waitFor(
      async () =>
        (await server?.capture(pane))?.includes('Working… (esc to interrupt)'),
      {
        message: 'spinner shown',
      },
    );

    await server?.tmux('send-keys', '-t', pane, '-l', 'while busy');
    await server?.tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(() => submits().length > 0, { message: 'submit while busy' });
    expect(submits()).toEqual([
      expect.objectContaining({ text: 'while busy', during: 'busy' }),
    ]);

    await server?.tmux('send-keys', '-t', pane, 'Escape');
    await waitFor(
      async () => (await server?.capture(pane))?.includes('Interrupted'),
      {
        message: 'busy interrupted',
      },
    );
    expect(readRecord().filter((e) => e.type === 'control')).toEqual([
      expect.objectContaining({ bytes: '1b', during: 'busy' }),
    ]);
  });

  it('records C-c as a control key', async () => {
    const pane = await startAgent([]);

    await server?.tmux('send-keys', '-t', pane, 'C-c');

    await waitFor(() => readRecord().some((e) => e.type === 'control'), {
      message: 'control recorded',
    });
    expect(readRecord()).toEqual([
      expect.objectContaining({ type: 'control', bytes: '03', during: 'idle' }),
    ]);
  });

  it('ignores the first submit keys with --ignore-submits and keeps the text', async () => {
    const pane = await startAgent([], ['--ignore-submits', '1']);

    await paste(pane, 'retry me');
    await server?.tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(() => readRecord().some((e) => e.type === 'submit-ignored'), {
      message: 'ignored submit',
    });
    expect(submits()).toEqual([]);
    await server?.tmux('send-keys', '-t', pane, 'Enter');

    await waitFor(() => submits().length > 0, { message: 'second submit' });
    expect(submits()).toEqual([expect.objectContaining({ text: 'retry me' })]);
  });

  it('runs script steps: waits for a submit and for a file', async () => {
    const flag = path.join(dir, 'go');
    const pane = await startAgent([
      { wait: 'submit' },
      { print: 'after submit\r\n' },
      { waitFile: flag },
      { noise: 3 },
      { print: 'after file\r\n' },
    ]);

    await server?.tmux('send-keys', '-t', pane, '-l', 'go');
    await server?.tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(
      async () => (await server?.capture(pane))?.includes('after submit'),
      {
        message: 'wait: submit step',
      },
    );
    writeFileSync(flag, '');

    await waitFor(
      async () => (await server?.capture(pane))?.includes('after file'),
      {
        message: 'waitFile step',
      },
    );
  });

  it('without bracketed paste, each pasted line submits', async () => {
    const pane = await startAgent([], ['--no-bracketed']);

    await paste(pane, 'one\ntwo\n');

    await waitFor(() => submits().length === 2, { message: 'two submits' });
    expect(submits().map((e) => e.text)).toEqual(['one', 'two']);
    expect(readRecord().some((e) => e.type === 'paste-start')).toBe(false);
  });
});
