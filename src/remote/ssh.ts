/**
 * The one place that runs ssh (with execa). A call is bounded by a
 * timeout; a call that times out or fails to connect is retried once on a
 * fresh connection (`ControlPath=none`), so a stale connection-sharing
 * socket of the user's config never hangs a command (agent-deck #1421).
 * Host data goes on stdin and comes back on stdout; the remote command line
 * is built from our own words only (ssh-args.ts).
 */
import type * as ExecaModule from 'execa';
import { buildSshArgs } from './ssh-args.js';
import { classifySshFailure, type RemoteError } from './ssh-errors.js';

/** How long one ssh call may take before it is ended and retried. */
export const SSH_CALL_TIMEOUT_MS = 15_000;
/** Most bytes a one-shot call's stdout may hold (host data is bounded). */
export const SSH_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

function loadExeca(): Promise<typeof ExecaModule> {
  return import('execa');
}

/** How a hub reaches one host. */
export interface SshTarget {
  /** The host's name in `hosts` (messages name it). */
  name: string;
  /** Its ssh destination. */
  destination: string;
  /** `-F`, when the user names an ssh config (`ssh` key, `MACS_SSH_CONFIG`). */
  configFile?: string;
}

export type SshCallResult =
  | { ok: true; stdout: string; stderr: string }
  | { ok: false; error: RemoteError };

export interface SshCallOptions {
  input?: string;
  timeoutMs?: number;
}

/** Run one remote command (argv, quoted here) and collect its output. */
export async function runSshCall(
  target: SshTarget,
  remote: readonly string[],
  options: SshCallOptions = {},
): Promise<SshCallResult> {
  const { execa } = await loadExeca();
  const attempt = async (fresh: boolean) => {
    const args = buildSshArgs({
      destination: target.destination,
      remote,
      ...(target.configFile ? { configFile: target.configFile } : {}),
      fresh,
    });
    return execa('ssh', args, {
      reject: false,
      input: options.input ?? '',
      timeout: options.timeoutMs ?? SSH_CALL_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxBuffer: SSH_MAX_OUTPUT_BYTES,
      encoding: 'utf8',
      stripFinalNewline: false,
    });
  };
  let result = await attempt(false);
  // A hang or a failed connection: once more, on a connection of its own.
  if (result.timedOut || result.exitCode === 255) result = await attempt(true);
  if (result.exitCode === 0 && !result.timedOut)
    return { ok: true, stdout: result.stdout, stderr: result.stderr };
  return {
    ok: false,
    error: classifySshFailure(
      target.name,
      {
        ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
        ...(result.signal ? { signal: result.signal } : {}),
        ...(result.exitCode === undefined && !result.signal
          ? { spawnError: result.shortMessage }
          : {}),
        stderr: result.stderr,
        timedOut: result.timedOut,
      },
      remote[0],
    ),
  };
}

/** A long-lived ssh process whose stdin and stdout carry a protocol. */
export interface SshChannel {
  stdin: NodeJS.WritableStream;
  stdout: NodeJS.ReadableStream;
  /** Resolves once the process ended, with what it said on stderr. */
  ended: Promise<{ exitCode?: number; stderr: string; signal?: string }>;
  pid: number | undefined;
  kill: () => void;
}

/** Start a long-lived remote command (a link); always on a fresh connection. */
export async function startSshChannel(
  target: SshTarget,
  remote: readonly string[],
): Promise<SshChannel> {
  const { execa } = await loadExeca();
  const args = buildSshArgs({
    destination: target.destination,
    remote,
    ...(target.configFile ? { configFile: target.configFile } : {}),
    fresh: true,
  });
  const child = execa('ssh', args, {
    reject: false,
    buffer: { stdout: false, stderr: true },
    maxBuffer: { stderr: 64 * 1024 },
    encoding: 'utf8',
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const ended = child.then((r) => ({
    ...(r.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
    stderr: typeof r.stderr === 'string' ? r.stderr : '',
    ...(r.signal ? { signal: r.signal } : {}),
  }));
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    ended,
    pid: child.pid,
    kill: () => {
      child.kill('SIGKILL');
    },
  };
}

/**
 * Run a remote command on this terminal (`ssh -t`, stdio inherited) until it
 * ends: `macs attach <host>/<agent>`. ssh says itself what went wrong on
 * stderr; resolves to its exit code (255: ssh failed).
 */
export async function runSshTerminal(
  target: SshTarget,
  remote: readonly string[],
): Promise<number> {
  const { execa } = await loadExeca();
  const args = buildSshArgs({
    destination: target.destination,
    remote,
    ...(target.configFile ? { configFile: target.configFile } : {}),
    tty: true,
  });
  const result = await execa('ssh', args, { stdio: 'inherit', reject: false });
  return result.exitCode ?? 1;
}
