import { describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors.js';
import { createTmuxClient, PaneNotFoundError } from '../../src/tmux/client.js';
import { FIELD_SEPARATOR, parsePaneLine } from '../../src/tmux/formats.js';
import {
  COMMAND_SEPARATOR,
  createRunTmux,
  type RunTmux,
  type TmuxResult,
} from '../../src/tmux/run.js';

/** A RunTmux that records argv and stdin and answers from a script. */
function recordingRunTmux(
  answer: (args: readonly string[]) => Partial<TmuxResult> = () => ({}),
) {
  const calls: { args: string[]; input?: string }[] = [];
  const run: RunTmux = (args, options) => {
    calls.push({
      args: [...args],
      ...(options?.input !== undefined ? { input: options.input } : {}),
    });
    return Promise.resolve({
      exitCode: 0,
      stdout: '',
      stderr: '',
      ...answer(args),
    });
  };
  return { run, calls };
}

describe('tmux client argv', () => {
  it('prefixes every command with the private socket', async () => {
    const { run, calls } = recordingRunTmux();
    const tmux = createTmuxClient('macs-abc', run);
    await tmux.sendKey('%3', 'Enter');
    expect(calls[0]?.args).toEqual([
      '-L',
      'macs-abc',
      'send-keys',
      '-t',
      '%3',
      'Enter',
    ]);
  });

  it('uses the default server when no socket is named', async () => {
    const { run, calls } = recordingRunTmux();
    await createTmuxClient(undefined, run).sendKey('%1', 'Enter');
    expect(calls[0]?.args).toEqual(['send-keys', '-t', '%1', 'Enter']);
  });

  it('types text literally after --, so it is never read as key names or options', async () => {
    const { run, calls } = recordingRunTmux();
    await createTmuxClient('s', run).sendLiteral('%2', '-C-c Enter');
    expect(calls[0]?.args).toEqual([
      '-L',
      's',
      'send-keys',
      '-t',
      '%2',
      '-l',
      '--',
      '-C-c Enter',
    ]);
  });

  it('loads text through stdin into a uniquely named buffer and pastes it bracketed, deleting it', async () => {
    const { run, calls } = recordingRunTmux();
    const tmux = createTmuxClient('s', run);
    const a = await tmux.loadBuffer('line 1\nline 2');
    const b = await tmux.loadBuffer('other');
    expect(a).not.toBe(b);
    expect(calls[0]).toEqual({
      args: ['-L', 's', 'load-buffer', '-b', a, '-'],
      input: 'line 1\nline 2',
    });
    await tmux.pasteBuffer('%4', a, { bracketed: true });
    expect(calls[2]?.args).toEqual([
      '-L',
      's',
      'paste-buffer',
      '-p',
      '-d',
      '-r',
      '-b',
      a,
      '-t',
      '%4',
    ]);
  });

  it('opens a pipe without -o (which would toggle an existing pipe off)', async () => {
    const { run, calls } = recordingRunTmux();
    await createTmuxClient('s', run).pipePane('%5', "exec cat >> '/tmp/x.log'");
    expect(calls[0]?.args).toEqual([
      '-L',
      's',
      'pipe-pane',
      '-t',
      '%5',
      "exec cat >> '/tmp/x.log'",
    ]);
    expect(calls[0]?.args).not.toContain('-o');
  });

  it('maps an unreachable server to TmuxError (exit 3) and a missing pane to PaneNotFoundError', async () => {
    const down = createTmuxClient(
      's',
      recordingRunTmux(() => ({
        exitCode: 1,
        stderr: 'no server running on /tmp/tmux-0/s',
      })).run,
    );
    await expect(down.sendKey('%1', 'Enter')).rejects.toMatchObject({
      exitCode: 3,
      name: 'TmuxError',
    });
    const gone = createTmuxClient(
      's',
      recordingRunTmux(() => ({ exitCode: 1, stderr: "can't find pane: %9" }))
        .run,
    );
    await expect(gone.sendKey('%9', 'Enter')).rejects.toBeInstanceOf(
      PaneNotFoundError,
    );
  });

  it('parses pane info printed with the pane format', async () => {
    const line = [
      '%7',
      '1234',
      '0',
      '',
      '1',
      '100',
      '30',
      '1',
      'node',
      'my title',
      'agents',
      'macs',
      'worker-1',
      '/h/.macs/panes/worker-1.log',
    ].join(FIELD_SEPARATOR);
    const { run } = recordingRunTmux(() => ({ stdout: `${line}\n` }));
    const info = await createTmuxClient('s', run).paneInfo('%7');
    expect(info).toMatchObject({
      id: '%7',
      pid: 1234,
      dead: false,
      inMode: true,
      width: 100,
      height: 30,
      piped: true,
      agentTag: 'worker-1',
    });
    expect(parsePaneLine('garbage')).toBeUndefined();
  });
});

describe('a chain of commands', () => {
  it('is one tmux process with the separator between commands, and a failure as one command has', async () => {
    const { run, calls } = recordingRunTmux(() => ({
      exitCode: 1,
      stderr: 'invalid option: @x',
    }));
    const tmux = createTmuxClient('s', run);
    const error = await tmux
      .chain([
        ['set-option', '-p', '-t', '%1', '@a', 'x;'],
        ['set-option', '-p', '-t', '%1', '@x', 'y'],
      ])
      .catch((e: unknown) => e);
    expect(calls.map((c) => c.args)).toEqual([
      [
        '-L',
        's',
        'set-option',
        '-p',
        '-t',
        '%1',
        '@a',
        'x;',
        COMMAND_SEPARATOR,
        'set-option',
        '-p',
        '-t',
        '%1',
        '@x',
        'y',
      ],
    ]);
    expect(error).toBeInstanceOf(TmuxError);
    expect((error as TmuxError).message).toBe(
      'tmux -L failed (exit 1): invalid option: @x',
    );
    expect((error as TmuxError).args).not.toContain(COMMAND_SEPARATOR);
    expect((error as TmuxError).args).toContain(';');
  });
});

describe('real runner', () => {
  it('reports a missing tmux binary as TmuxError with an install hint', async () => {
    const run = createRunTmux({ tmuxPath: '/nonexistent/tmux-xyz', env: {} });
    const error = await run(['-V']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TmuxError);
    expect((error as TmuxError).exitCode).toBe(3);
    expect((error as TmuxError).hint).toMatch(/apt-get install -y tmux/);
  });
});

// The other half: a line tmux printed that macs cannot read is a failure to
// read, never "no such pane". Before, paneInfo threw PaneNotFoundError (the
// MCP tools said "has no pane any more") and listPanes dropped the line
// (discovery said "no pane found").
describe('a pane line macs cannot read (issue 25, point 2)', () => {
  const underscored: RunTmux = () =>
    Promise.resolve({
      exitCode: 0,
      stdout: '%1_123_0__0_80_24_1_bash_t_w_s_worker-1_\n',
      stderr: '',
    });

  it('is an error about the reading, for paneInfo and listPanes', async () => {
    const tmux = createTmuxClient('s', underscored);
    const info = await tmux.paneInfo('%1').catch((e: unknown) => e);
    expect(info).toBeInstanceOf(TmuxError);
    expect(String((info as Error).message)).toMatch(
      /could not read pane %1 from tmux server 's'/,
    );
    const list = await tmux.listPanes().catch((e: unknown) => e);
    expect(list).toBeInstanceOf(TmuxError);
    expect(String((list as Error).message)).toMatch(
      /could not read the pane list/,
    );
  });
});
