/**
 * Pure: the argv of every `ssh` macs runs, and the one quoting function for
 * the remote command line. ssh joins the words after the destination with
 * spaces and hands them to the remote user's shell, so every word is quoted
 * here for a POSIX shell; nothing that came from a host ever becomes part of
 * a command line (host data travels on stdin and stdout only).
 */

/** How long ssh may take to connect, in seconds (`ConnectTimeout`). */
export const SSH_CONNECT_TIMEOUT_SEC = 5;
/** Keepalive: a silent connection is dropped after interval × count seconds. */
export const SSH_ALIVE_INTERVAL_SEC = 3;
export const SSH_ALIVE_COUNT = 2;

/** A host's ssh destination: `[user@]host` or an alias of the ssh config, never an option. */
export const SSH_DESTINATION = /^[A-Za-z0-9_][A-Za-z0-9_.@:%+-]{0,254}$/;

/**
 * Quote one word for a POSIX shell: single quotes around it, each single
 * quote closed, escaped and reopened. A word of only safe characters is left
 * as it is, so command lines read well in logs.
 */
export function quoteShellWord(word: string): string {
  if (word.includes('\0')) throw new Error('a NUL byte cannot be quoted');
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The remote command line for an argv (each word quoted). */
export function buildRemoteCommand(argv: readonly string[]): string {
  return argv.map(quoteShellWord).join(' ');
}

export interface SshArgsOptions {
  destination: string;
  /** The remote program and its arguments (quoted here). */
  remote: readonly string[];
  /** `-F`: an ssh config file of the user's choice (`MACS_SSH_CONFIG`). */
  configFile?: string;
  /**
   * A fresh connection: no connection sharing (`ControlPath=none`), so a
   * stale master socket can never hang the call. Retries use it.
   */
  fresh?: boolean;
  /** A terminal on the host (`-t`: `macs attach <host>/<agent>`); else `-T`. */
  tty?: boolean;
}

/** The argv of `ssh` for one remote command (the program is `ssh`). */
export function buildSshArgs(options: SshArgsOptions): string[] {
  if (!SSH_DESTINATION.test(options.destination))
    throw new Error(`'${options.destination}' is not an ssh destination`);
  return [
    ...(options.configFile ? ['-F', options.configFile] : []),
    options.tty ? '-t' : '-T',
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${SSH_CONNECT_TIMEOUT_SEC}`,
    '-o',
    `ServerAliveInterval=${SSH_ALIVE_INTERVAL_SEC}`,
    '-o',
    `ServerAliveCountMax=${SSH_ALIVE_COUNT}`,
    ...(options.fresh
      ? ['-o', 'ControlPath=none', '-o', 'ControlMaster=no']
      : []),
    '--',
    options.destination,
    buildRemoteCommand(options.remote),
  ];
}
