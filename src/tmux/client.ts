import { randomBytes } from 'node:crypto';
import { MacsError, TmuxError } from '../errors.js';
import {
  buildCancelModeArgs,
  buildCapturePaneArgs,
  buildClosePipeArgs,
  buildDisplayArgs,
  buildKillServerArgs,
  buildListPanesArgs,
  buildLoadBufferArgs,
  buildPasteBufferArgs,
  buildPipePaneArgs,
  buildSendKeyArgs,
  buildSendLiteralArgs,
  buildSetBufferArgs,
  buildSetPaneOptionArgs,
  buildSocketArgs,
} from './args.js';
import {
  describeUnreadablePaneLine,
  FIELD_SEPARATOR,
  PANE_FORMAT,
  parsePaneLine,
  parsePaneList,
  type PaneInfo,
} from './formats.js';
import {
  ControlLostError,
  ControlUnavailableError,
  type ControlChannel,
} from './control.js';
import { COMMAND_SEPARATOR, type RunTmux, type TmuxResult } from './run.js';

export type { PaneInfo } from './formats.js';

/** A pane that does not exist (killed, or a wrong id). */
export class PaneNotFoundError extends MacsError {
  readonly pane: string;
  constructor(pane: string, stderr: string) {
    super(`tmux pane ${pane} not found (${stderr.trim() || 'no such pane'})`, {
      exitCode: 1,
      hint: 'list panes with: tmux list-panes -a -F "#{pane_id} #{pane_current_command}"',
    });
    this.name = 'PaneNotFoundError';
    this.pane = pane;
  }
}

/** Everything macs asks of tmux. Knows nothing about agents. */
export interface TmuxClient {
  readonly socket: string | undefined;
  /** Run raw tmux arguments (after the socket prefix); throws on failure. */
  command(args: readonly string[], input?: string): Promise<string>;
  /**
   * Run several commands in order in one tmux call (`tmux a \; b`), which
   * stops at the first that fails; resolves to their joined output. `pane`:
   * the pane they act on, so a missing one is a PaneNotFoundError. A
   * failure is reported as one command's is (tmux does not say which).
   */
  chain(list: readonly (readonly string[])[], pane?: string): Promise<string>;
  paneInfo(pane: string): Promise<PaneInfo>;
  listPanes(): Promise<PaneInfo[]>;
  /** Pipe the pane's output into a shell command, replacing any pipe. */
  pipePane(pane: string, shellCommand: string): Promise<void>;
  closePipe(pane: string): Promise<void>;
  setPaneOption(pane: string, name: string, value: string): Promise<void>;
  /** Load text into a new uniquely named buffer and return its name. */
  loadBuffer(text: string): Promise<string>;
  pasteBuffer(
    pane: string,
    buffer: string,
    options: { bracketed: boolean },
  ): Promise<void>;
  sendLiteral(pane: string, text: string): Promise<void>;
  sendKey(pane: string, key: string): Promise<void>;
  cancelMode(pane: string): Promise<void>;
  capturePane(
    pane: string,
    options?: { start?: number | '-'; join?: boolean; escapes?: boolean },
  ): Promise<string>;
  killServer(): Promise<void>;
  isServerRunning(): Promise<boolean>;
  /**
   * Call `listener` when the control-mode connection is lost (its client
   * exited: at once when the server dies); undefined without one.
   */
  onControlLost?: (listener: () => void) => () => void;
  /** Close the control-mode connection, if there is one. */
  close(): Promise<void>;
}

export interface TmuxClientOptions {
  /**
   * Run commands over one control-mode connection instead of a process
   * each (long-running commands: the bridge). Commands that need stdin, and
   * any command while the connection is down, still start a process.
   */
  control?: ControlChannel;
}

/** Commands that only read: safe to run again when a reply was lost. */
const READ_ONLY = new Set([
  'display-message',
  'capture-pane',
  'list-panes',
  'list-sessions',
  'list-clients',
  'list-buffers',
  'show-buffer',
  'show-options',
  'has-session',
]);

function isReadOnly(args: readonly string[]): boolean {
  const name = args[0] ?? '';
  // display-message without -p shows a message: not a read.
  if (name === 'display-message') return args.includes('-p');
  return READ_ONLY.has(name);
}

const SERVER_GONE =
  /no server running|error connecting to|server exited|lost server/i;
const PANE_GONE = /can't find (pane|window|session)|no such (pane|window)/i;

/** Build a client that runs every command against `socket` (or the default server). */
export function createTmuxClient(
  socket: string | undefined,
  run: RunTmux,
  clientOptions: TmuxClientOptions = {},
): TmuxClient {
  const control = clientOptions.control;
  const prefix = buildSocketArgs(socket);
  const where = socket
    ? `tmux server '${socket}' (tmux -L ${socket})`
    : 'the tmux server';

  function fail(
    args: readonly string[],
    result: TmuxResult,
    pane?: string,
  ): never {
    const stderr = result.stderr.trim();
    if (SERVER_GONE.test(stderr)) {
      throw new TmuxError(`${where} is not running or unreachable: ${stderr}`, {
        hint: 'start it with `macs start`, or pass the right --tmux-socket',
        args,
        stderr,
      });
    }
    if (pane && PANE_GONE.test(stderr))
      throw new PaneNotFoundError(pane, stderr);
    throw new TmuxError(
      `tmux ${args[0] ?? ''} failed (exit ${result.exitCode}): ${stderr}`,
      {
        args,
        stderr,
      },
    );
  }

  /** tmux answered, but not in macs's format. */
  function unreadable(what: string, line: string): TmuxError {
    return new TmuxError(
      `could not read ${what} from ${where}: ${describeUnreadablePaneLine(line)}`,
      {
        hint: 'macs runs tmux with -u so its output does not depend on the locale; check that MACS_TMUX (or tmux on PATH) is tmux 3.2 or newer',
      },
    );
  }

  /** Over the control connection when there is one, else a process. */
  async function runArgs(
    args: readonly string[],
    input?: string,
  ): Promise<TmuxResult> {
    if (control && input === undefined) {
      try {
        return await control.run(args);
      } catch (error) {
        if (error instanceof ControlLostError) {
          if (!isReadOnly(args))
            throw new TmuxError(
              `tmux ${args[0] ?? ''}: ${error.message}; whether it ran is unknown, so it is not repeated`,
              { args },
            );
        } else if (!(error instanceof ControlUnavailableError)) throw error;
      }
    }
    return run(
      [...prefix, ...args],
      input === undefined ? undefined : { input },
    );
  }

  async function exec(
    args: readonly string[],
    input?: string,
    pane?: string,
  ): Promise<string> {
    const result = await runArgs(args, input);
    if (result.exitCode !== 0) fail([...prefix, ...args], result, pane);
    return result.stdout;
  }

  /** One process for the whole chain; over control mode, one line each. */
  async function execChain(
    list: readonly (readonly string[])[],
    pane?: string,
  ): Promise<string> {
    if (list.some((args) => args.some((arg) => arg.includes('\0'))))
      throw new TmuxError('a tmux argument cannot contain a NUL character');
    if (control) {
      let out = '';
      for (const args of list) out += await exec(args, undefined, pane);
      return out;
    }
    const joined = list.flatMap((args, i) =>
      i === 0 ? [...args] : [COMMAND_SEPARATOR, ...args],
    );
    const result = await run([...prefix, ...joined]);
    if (result.exitCode !== 0)
      fail(
        [...prefix, ...joined].map((a) => (a === COMMAND_SEPARATOR ? ';' : a)),
        result,
        pane,
      );
    return result.stdout;
  }

  return {
    socket,
    command: (args, input) => exec(args, input),
    chain: (list, pane) => execChain(list, pane),
    async paneInfo(pane) {
      const out = await exec(
        buildDisplayArgs(pane, PANE_FORMAT),
        undefined,
        pane,
      );
      const line = out.replace(/\n$/, '');
      const info = parsePaneLine(line);
      if (info) return info;
      // Read in full but for no pane (control mode answers a missing pane
      // with empty fields, or nothing): the pane is gone.
      if (!line.trim() || line.split(FIELD_SEPARATOR).length >= 14)
        throw new PaneNotFoundError(pane, 'no such pane');
      // A line tmux printed for the pane: the reading failed, not the pane.
      throw unreadable(`pane ${pane}`, line);
    },
    async listPanes() {
      const args = buildListPanesArgs(PANE_FORMAT);
      const result = await runArgs(args);
      if (result.exitCode !== 0) fail([...prefix, ...args], result);
      const { panes, unreadable: lines } = parsePaneList(result.stdout);
      if (lines[0] !== undefined) throw unreadable('the pane list', lines[0]);
      return panes;
    },
    async pipePane(pane, shellCommand) {
      await exec(buildPipePaneArgs(pane, shellCommand), undefined, pane);
    },
    async closePipe(pane) {
      await exec(buildClosePipeArgs(pane), undefined, pane);
    },
    async setPaneOption(pane, name, value) {
      await exec(buildSetPaneOptionArgs(pane, name, value), undefined, pane);
    },
    async loadBuffer(text) {
      const name = `macs-${process.pid}-${randomBytes(6).toString('hex')}`;
      // Over the control connection the text goes as a quoted argument
      // (quoteControlArg); a process reads it from its stdin.
      if (control) await exec(buildSetBufferArgs(name, text));
      else await exec(buildLoadBufferArgs(name), text);
      return name;
    },
    async pasteBuffer(pane, buffer, options) {
      await exec(buildPasteBufferArgs(pane, buffer, options), undefined, pane);
    },
    async sendLiteral(pane, text) {
      await exec(buildSendLiteralArgs(pane, text), undefined, pane);
    },
    async sendKey(pane, key) {
      await exec(buildSendKeyArgs(pane, key), undefined, pane);
    },
    async cancelMode(pane) {
      await exec(buildCancelModeArgs(pane), undefined, pane);
    },
    async capturePane(pane, options = {}) {
      return exec(buildCapturePaneArgs(pane, options), undefined, pane);
    },
    async killServer() {
      const full = [...prefix, ...buildKillServerArgs()];
      await run(full);
    },
    async isServerRunning() {
      // Over the control connection while it is up: no process a second.
      const result = await runArgs(['list-sessions']);
      return result.exitCode === 0;
    },
    ...(control
      ? { onControlLost: (listener: () => void) => control.onDrop(listener) }
      : {}),
    async close() {
      await control?.close();
    },
  };
}
