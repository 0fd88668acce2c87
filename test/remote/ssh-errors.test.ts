import { describe, expect, it } from 'vitest';
import {
  classifySshFailure,
  versionMismatch,
} from '../../src/remote/ssh-errors.js';

describe('classifySshFailure', () => {
  it.each([
    [
      {
        exitCode: 255,
        stderr:
          '@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\nOffending ED25519 key in /k:1\nHost key verification failed.\n',
      },
      'host-key-changed',
      /its host key changed/,
    ],
    [
      { exitCode: 255, stderr: 'Host key verification failed.\n' },
      'host-key-unknown',
      /not known/,
    ],
    [
      { exitCode: 255, stderr: 'dev@gpu1: Permission denied (publickey).\n' },
      'auth-refused',
      /authentication refused/,
    ],
    [
      {
        exitCode: 255,
        stderr: 'ssh: connect to host 10.0.0.9 port 22: Connection refused\n',
      },
      'unreachable',
      /Connection refused/,
    ],
    [
      { exitCode: 127, stderr: 'bash: line 1: macs: command not found\n' },
      'no-macs',
      /macs is not on its PATH/,
    ],
    [{ stderr: '', timedOut: true }, 'timeout', /in time/],
    [
      { stderr: '', signal: 'SIGKILL' },
      'failed',
      /ssh was ended by SIGKILL on this machine$/,
    ],
    // What the host said wins over the signal macs itself ended ssh with.
    [
      { stderr: 'bash: line 1: macs: command not found\n', signal: 'SIGKILL' },
      'no-macs',
      /macs is not on its PATH/,
    ],
    [
      { stderr: '', spawnError: 'Command failed with ENOENT: ssh\nmore' },
      'failed',
      /ssh could not run: Command failed with ENOENT: ssh$/,
    ],
    [
      { exitCode: 1, stderr: 'macs: no agent \u001b[31mx\n' },
      'failed',
      /macs failed \(exit 1\): macs: no agent \[31mx$/,
    ],
  ])('%j -> %s', (result, kind, message) => {
    const error = classifySshFailure('gpu1', result);
    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(/^host gpu1: /);
    expect(error.message).toMatch(message);
    expect(error.hint).toBeTruthy();
  });

  it('names the install command for a missing macs', () => {
    expect(
      classifySshFailure('gpu1', {
        exitCode: 127,
        stderr: 'sh: 1: macs: not found',
      }).hint,
    ).toMatch(/npm install -g macs/);
  });

  it('a version mismatch names both versions and the fix', () => {
    const error = versionMismatch('gpu1', '0.0.9', '0.1.0');
    expect(error.message).toBe(
      'host gpu1: runs macs 0.0.9, this machine 0.1.0',
    );
    expect(error.hint).toMatch(/macs@0\.1\.0/);
  });
});
