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
