/**
 * Pure argv builders for tmux commands (no I/O). Each returns the arguments
 * after the global `-L socket` prefix, which the client adds.
 */

/** The global prefix: `-L NAME` when a private socket is named. */
export function buildSocketArgs(socket: string | undefined): string[] {
  return socket ? ['-L', socket] : [];
}

export function buildDisplayArgs(target: string, format: string): string[] {
  return ['display-message', '-p', '-t', target, format];
}

export function buildListPanesArgs(format: string, target?: string): string[] {
  return target
    ? ['list-panes', '-t', target, '-F', format]
    : ['list-panes', '-a', '-F', format];
}

/** Open (or replace) a pipe of the pane's output into a shell command. */
export function buildPipePaneArgs(pane: string, command: string): string[] {
  return ['pipe-pane', '-t', pane, command];
}

export function buildClosePipeArgs(pane: string): string[] {
  return ['pipe-pane', '-t', pane];
}

/** Load text from stdin into a named buffer. */
export function buildLoadBufferArgs(buffer: string): string[] {
  return ['load-buffer', '-b', buffer, '-'];
}

/** Set a named buffer to `text`; `--` so text starting with `-` is never an option. */
export function buildSetBufferArgs(buffer: string, text: string): string[] {
  return ['set-buffer', '-b', buffer, '--', text];
}

/**
 * Paste a named buffer: `-p` bracketed (when the program asked for it),
 * `-d` delete the buffer afterwards, `-r` keep line feeds as they are
 * (tmux otherwise turns LF into CR).
 */
export function buildPasteBufferArgs(
  pane: string,
  buffer: string,
  options: { bracketed: boolean },
): string[] {
  return [
    'paste-buffer',
    ...(options.bracketed ? ['-p'] : []),
    '-d',
    '-r',
    '-b',
    buffer,
    '-t',
    pane,
  ];
}

/** Type text literally; `--` so text starting with `-` is never an option. */
export function buildSendLiteralArgs(pane: string, text: string): string[] {
  return ['send-keys', '-t', pane, '-l', '--', text];
}

/** Press one named key (Enter, C-m, Escape...). */
export function buildSendKeyArgs(pane: string, key: string): string[] {
  return ['send-keys', '-t', pane, key];
}

/** Leave copy mode (or any other mode) without touching the program. */
export function buildCancelModeArgs(pane: string): string[] {
  return ['send-keys', '-t', pane, '-X', 'cancel'];
}

export function buildCapturePaneArgs(
  pane: string,
  options: { start?: number | '-'; join?: boolean; escapes?: boolean } = {},
): string[] {
  return [
    'capture-pane',
    '-p',
    '-t',
    pane,
    ...(options.join ? ['-J'] : []),
    ...(options.escapes ? ['-e'] : []),
    ...(options.start === undefined ? [] : ['-S', String(options.start)]),
  ];
}

export function buildSetPaneOptionArgs(
  pane: string,
  name: string,
  value: string,
): string[] {
  return ['set-option', '-p', '-t', pane, name, value];
}

export function buildKillServerArgs(): string[] {
  return ['kill-server'];
}

/** Single-quote a string for the `sh -c` that tmux runs pipe-pane commands with. */
export function quoteShellArg(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Make the window holding `target` the current one of its session. */
export function buildSelectWindowArgs(target: string): string[] {
  return ['select-window', '-t', target];
}

/** Make `target` the active pane of its window. */
export function buildSelectPaneArgs(target: string): string[] {
  return ['select-pane', '-t', target];
}

/** Show `target` (a pane, possibly in another session) on one client. */
export function buildSwitchClientArgs(
  client: string,
  target: string,
): string[] {
  return ['switch-client', '-c', client, '-t', target];
}

/** List the clients (of one session, when given). */
export function buildListClientsArgs(
  format: string,
  session?: string,
): string[] {
  return [
    'list-clients',
    '-F',
    format,
    ...(session === undefined ? [] : ['-t', session]),
  ];
}

/**
 * Show a message in one client's status line for `durationMs`. tmux expands
 * `#{...}` formats and strftime `%` sequences in the message (tmux 3.3a
 * `format_expand_time`), so both are escaped to show the text as is.
 */
export function buildShowMessageArgs(
  client: string,
  message: string,
  durationMs: number,
): string[] {
  return [
    'display-message',
    '-c',
    client,
    '-d',
    String(durationMs),
    message.replaceAll('#', '##').replaceAll('%', '%%'),
  ];
}
