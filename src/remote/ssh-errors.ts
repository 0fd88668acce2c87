/**
 * Pure: what a failed ssh call means, as one line naming the host and what
 * to do. ssh's own failures come with exit status 255 and a message on
 * stderr; the remote shell's with 126/127 ("command not found").
 */
import { MacsError } from '../errors.js';

export type SshFailureKind =
  | 'host-key-changed'
  | 'host-key-unknown'
  | 'auth-refused'
  | 'unreachable'
  | 'no-macs'
  | 'no-tmux'
  | 'version-mismatch'
  | 'no-home'
  | 'timeout'
  | 'failed';

/** A host's failure, with its kind (for `macs hosts --json` and tests). */
export class RemoteError extends MacsError {
  constructor(
    readonly host: string,
    readonly kind: SshFailureKind,
    message: string,
    hint: string,
  ) {
    super(`host ${host}: ${message}`, { hint, exitCode: 1 });
    this.name = 'RemoteError';
  }
}

/** The command that installs macs on a host. */
export const INSTALL_COMMAND = 'npm install -g macs';

/** The first line of stderr worth showing, with control characters removed. */
function firstLine(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  // eslint-disable-next-line no-control-regex
  return line.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').slice(0, 200);
}

/** Classify a failed ssh run. `program` is the remote program that was run. */
export function classifySshFailure(
  host: string,
  result: {
    exitCode?: number;
    stderr: string;
    timedOut?: boolean;
    /** The signal that ended ssh, when one did. */
    signal?: string;
    /** Why ssh did not run at all (no exit code, no signal). */
    spawnError?: string;
  },
  program = 'macs',
): RemoteError {
  const { stderr } = result;
  if (result.timedOut)
    return new RemoteError(
      host,
      'timeout',
      'no answer over ssh in time',
      'check that the host is up and `ssh <host> true` returns at once',
    );
  if (
    /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/i.test(
      stderr,
    )
  ) {
    if (/CHANGED/.test(stderr) || /Offending/i.test(stderr))
      return new RemoteError(
        host,
        'host-key-changed',
        'its host key changed; macs refuses to connect',
        'if the change is expected, remove the old key (ssh-keygen -R <host>) and connect once with ssh to accept the new one',
      );
    return new RemoteError(
      host,
      'host-key-unknown',
      'its host key is not known (host key verification failed)',
      'connect once with ssh to check and accept its key; macs never accepts a key by itself',
    );
  }
  if (/Permission denied|Too many authentication failures/i.test(stderr))
    return new RemoteError(
      host,
      'auth-refused',
      'authentication refused',
      'macs runs ssh with BatchMode: load the key in your ssh agent or name it with IdentityFile in your ssh config',
    );
  if (result.exitCode === 255)
    return new RemoteError(
      host,
      'unreachable',
      `ssh failed: ${firstLine(stderr) || 'no connection'}`,
      'check that `ssh <host> true` works from this machine',
    );
  if (result.exitCode === 127 || /command not found|not found/i.test(stderr)) {
    if (program === 'macs' && /\bmacs\b/.test(stderr))
      return new RemoteError(
        host,
        'no-macs',
        'macs is not on its PATH for non-interactive ssh',
        `install it there (${INSTALL_COMMAND}) and make sure \`ssh <host> macs --version\` finds it (docs/remote.md)`,
      );
    if (/\btmux\b/.test(stderr))
      return new RemoteError(
        host,
        'no-tmux',
        'tmux is not on its PATH for non-interactive ssh',
        'install tmux 3.2+ there (apt-get install -y tmux)',
      );
  }
  // The host's macs refused the hub's `home` (home/open-home.ts: assertHubHome).
  const noHome = /^macs: (\/.* is not a macs home .*)$/m.exec(stderr);
  if (noHome?.[1])
    return new RemoteError(
      host,
      'no-home',
      firstLine(noHome[1]),
      'check its "home" in macs.config.json (the folder of its macs.config.json), or start macs there with `macs start`',
    );
  // Nothing ssh or the host said explains it (what they say comes first:
  // a channel macs itself ends after a failed start still carries it).
  if (result.exitCode === undefined && (result.signal || result.spawnError))
    return new RemoteError(
      host,
      'failed',
      result.signal
        ? `ssh was ended by ${result.signal} on this machine`
        : `ssh could not run: ${firstLine(result.spawnError ?? '')}`,
      result.signal
        ? 'another process ended it; run the command again'
        : 'check that ssh is installed and on PATH',
    );
  return new RemoteError(
    host,
    'failed',
    `${program} failed (exit ${result.exitCode ?? '?'}): ${firstLine(stderr) || 'no message'}`,
    'run the same command on the host to see more',
  );
}

/** A host whose macs is not the hub's version. */
export function versionMismatch(
  host: string,
  theirs: string,
  ours: string,
): RemoteError {
  return new RemoteError(
    host,
    'version-mismatch',
    `runs macs ${theirs}, this machine ${ours}`,
    `install the same version on both (${INSTALL_COMMAND}@${ours})`,
  );
}
