// Test hosts for the bench's remote step, the same way as the tests'
// (test/helpers/ssh-hosts.ts, docs/remote.md "Test hosts"): one sshd per
// host on its own loopback address (127.0.0.2, …, a random port), each in
// its own mount namespace with a private folder over /root and /tmp, keys
// made for the run, and an ssh config of the hub's own (MACS_SSH_CONFIG).
// Each sshd is bounded in time; stop() ends the hosts' tmux servers and the
// sshds and removes the folder. Needs root, unshare and openssh-server.
import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MACS, ROOT, sleep } from './lib.mjs';

const SSHD = '/usr/sbin/sshd';
/** Where a host sees this checkout, under its home (as test/helpers/ssh-hosts.ts). */
const HOST_REPO_DIR = 'macs-checkout';
/** An sshd never outlives the bench step by more than this. */
const SSHD_LIFETIME_SEC = 600;
export const HOST_HOME = '/root/proj';

const keygen = (file) =>
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], {
    stdio: 'ignore',
  });

const portOpen = (host, port) =>
  new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/** Why the hosts cannot run here, or undefined. */
export function sshHostsMissing() {
  if (!existsSync(SSHD))
    return `${SSHD} is missing (apt-get install -y openssh-server, as root)`;
  if (process.getuid?.() !== 0) return 'the test hosts need root (unshare -m)';
  try {
    execFileSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
  } catch {
    return 'unshare -m failed: the test hosts need mount namespaces';
  }
  return undefined;
}

/** A host's path (/root/… or /tmp/… inside it) as the bench sees it. */
export const hostPath = (host, inside) =>
  inside.startsWith('/root/')
    ? path.join(host.homeDir, inside.slice('/root/'.length))
    : path.join(host.tmpDir, inside.slice('/tmp/'.length));

/** Start hosts named `names`, each running this checkout's macs. */
export async function startTestHosts(names) {
  const missing = sshHostsMissing();
  if (missing) throw new Error(`bench remote: ${missing}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-bench-hosts-'));
  chmodSync(dir, 0o700);
  const userKey = path.join(dir, 'hub_key');
  keygen(userKey);
  const knownHosts = path.join(dir, 'known_hosts');
  const sshConfig = path.join(dir, 'ssh_config');
  const hosts = names.map((name, i) => {
    const root = path.join(dir, name);
    const homeDir = path.join(root, 'home');
    const tmpDir = path.join(root, 'tmp');
    const sshdDir = path.join(tmpDir, 'sshd');
    mkdirSync(path.join(homeDir, '.ssh'), { recursive: true, mode: 0o700 });
    mkdirSync(path.join(homeDir, 'bin'), { recursive: true, mode: 0o700 });
    mkdirSync(sshdDir, { recursive: true, mode: 0o700 });
    chmodSync(tmpDir, 0o1777);
    keygen(path.join(sshdDir, 'host_key'));
    writeFileSync(
      path.join(homeDir, '.ssh', 'authorized_keys'),
      readFileSync(`${userKey}.pub`),
      { mode: 0o600 },
    );
    writeFileSync(
      path.join(homeDir, 'bin', 'macs'),
      `#!/bin/sh\nexec ${process.execPath} /root/${HOST_REPO_DIR}/${path.relative(ROOT, MACS)} "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      path.join(homeDir, '.ssh', 'environment'),
      'PATH=/root/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nLANG=C.UTF-8\n',
      { mode: 0o600 },
    );
    const address = `127.0.0.${i + 2}`;
    const port = 20_000 + randomInt(20_000);
    writeFileSync(
      path.join(sshdDir, 'sshd_config'),
      [
        `ListenAddress ${address}:${port}`,
        'HostKey /tmp/sshd/host_key',
        'PidFile none',
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitUserEnvironment yes',
        'AuthorizedKeysFile /root/.ssh/authorized_keys',
        'StrictModes no',
        'MaxStartups 100',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    return {
      name,
      address,
      port,
      ssh: `macs-bench-${name}`,
      homeDir,
      tmpDir,
      hostKey: path.join(sshdDir, 'host_key.pub'),
    };
  });
  writeFileSync(
    knownHosts,
    hosts
      .map(
        (h) =>
          `[${h.address}]:${h.port} ${readFileSync(h.hostKey, 'utf8').trim()}\n`,
      )
      .join(''),
    { mode: 0o600 },
  );
  writeFileSync(
    sshConfig,
    hosts
      .map(
        (h) =>
          `Host ${h.ssh}\n  HostName ${h.address}\n  Port ${h.port}\n  User root\n`,
      )
      .join('') +
      `Host *\n  IdentityFile ${userKey}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile /dev/null\n  BatchMode yes\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n`,
    { mode: 0o600 },
  );
  const ssh = (host, input) =>
    new Promise((resolve) => {
      const child = spawn('ssh', ['-F', sshConfig, '-T', host.ssh, 'sh -s'], {
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.stdin.end(input);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  // An interrupted bench (lib.mjs exits on SIGINT) still ends the sshds.
  const killSshds = () => {
    for (const h of hosts) {
      if (!h.sshd || h.sshd.exitCode !== null) continue;
      try {
        process.kill(-h.sshd.pid, 'SIGKILL');
      } catch {
        h.sshd.kill('SIGKILL');
      }
    }
  };
  process.once('exit', killSshds);
  const stop = async () => {
    // The host's macs session and tmux server outlive its sshd (daemons).
    await Promise.all(
      hosts.map((h) =>
        ssh(
          h,
          `macs stop --home ${HOST_HOME} >/dev/null 2>&1\nfor s in /tmp/tmux-0/*; do [ -S "$s" ] && tmux -S "$s" kill-server; done; true\n`,
        ),
      ),
    );
    killSshds();
    process.removeListener('exit', killSshds);
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const h of hosts) {
      const script = [
        'set -e',
        'mkdir -p /run/sshd',
        // The checkout is bound under the host's home first: hiding a
        // machine-wide macs (npm link) may hide this very checkout.
        `mkdir -p ${h.homeDir}/${HOST_REPO_DIR}`,
        `mount --bind ${ROOT} ${h.homeDir}/${HOST_REPO_DIR}`,
        'for m in $(which -a macs 2>/dev/null); do mount -t tmpfs -o size=64k none "$(dirname "$(readlink -f "$m")")"; done',
        `mount --rbind ${h.homeDir} /root`,
        `mount --bind ${h.tmpDir} /tmp`,
        `exec timeout ${SSHD_LIFETIME_SEC} ${SSHD} -D -e -f /tmp/sshd/sshd_config`,
      ].join('\n');
      h.sshd = spawn(
        'unshare',
        ['-m', '--propagation', 'private', 'sh', '-c', script],
        { stdio: 'ignore', detached: true },
      );
    }
    const deadline = Date.now() + 20_000;
    for (const h of hosts)
      while (!(await portOpen(h.address, h.port))) {
        if (h.sshd.exitCode !== null || Date.now() > deadline)
          throw new Error(`bench remote: the sshd of ${h.name} did not start`);
        await sleep(50);
      }
  } catch (error) {
    await stop();
    throw error;
  }
  return { hosts, sshConfig, stop };
}
