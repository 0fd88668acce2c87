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
  buildSetPaneOptionArgs,
  buildSocketArgs,
} from './args.js';
import {
  PANE_FORMAT,
  parsePaneLine,
  parsePaneList,
  type PaneInfo,
} from './formats.js';
import type { RunTmux, TmuxResult } from './run.js';

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
}

const SERVER_GONE =
  /no server running|error connecting to|server exited|lost server/i;
const PANE_GONE = /can't find (pane|window|session)|no such (pane|window)/i;

/** Build a client that runs every command against `socket` (or the default server). */
export function createTmuxClient(
  socket: string | undefined,
  run: RunTmux,
): TmuxClient {
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

  async function exec(
    args: readonly string[],
    input?: string,
    pane?: string,
  ): Promise<string> {
    const full = [...prefix, ...args];
    const result = await run(full, input === undefined ? undefined : { input });
    if (result.exitCode !== 0) fail(full, result, pane);
    return result.stdout;
  }

  return {
    socket,
    command: (args, input) => exec(args, input),
    async paneInfo(pane) {
      const out = await exec(
        buildDisplayArgs(pane, PANE_FORMAT),
        undefined,
        pane,
      );
      const info = parsePaneLine(out.replace(/\n$/, ''));
      if (!info)
        throw new PaneNotFoundError(
          pane,
          `unexpected output: ${out.slice(0, 80)}`,
        );
      return info;
    },
    async listPanes() {
      const full = [...prefix, ...buildListPanesArgs(PANE_FORMAT)];
      const result = await run(full);
      if (result.exitCode !== 0) fail(full, result);
      return parsePaneList(result.stdout);
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
      await exec(buildLoadBufferArgs(name), text);
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
      const result = await run([...prefix, 'list-sessions']);
      return result.exitCode === 0;
    },
  };
}
