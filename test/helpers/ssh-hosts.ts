/**
 * The project's test hosts (docs/remote.md, "Test hosts"): one `sshd` per
 * host on its own loopback address (127.0.0.2, 127.0.0.3, …), each in its
 * own mount namespace (`unshare -m`) where a private folder is bind-mounted
 * over the home of root (`/root`) and over `/tmp`, so the host has its own
 * home, its own tmux server (its socket lives in /tmp) and its own macs
 * homes, and the hub reaches them only through ssh. Keys are throwaway
 * (ssh-keygen into a temp folder); the hub side gets an ssh config file of
 * its own (`-F`: the user key, a known_hosts with the host keys, BatchMode),
 * which macs is pointed at with `MACS_SSH_CONFIG`.
 *
 * Each sshd is bounded in time (a `timeout` wrapper) and is stopped by
 * `stop()`; a test calls it in afterAll.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MACS_BIN, REPO_ROOT } from './macs.js';
import { waitFor } from './wait-for.js';

export const SSHD = '/usr/sbin/sshd';
/** An sshd never outlives a test run by more than this. */
const SSHD_LIFETIME_SEC = 900;

/** True when this machine can run the test hosts (sshd, unshare, root). */
export function sshHostsMissing(): string | undefined {
  if (!existsSync(SSHD))
    return `${SSHD} is missing: the remote tests need Debian's openssh-server (apt-get install -y openssh-server, as root)`;
  if (process.getuid?.() !== 0)
    return 'the remote tests run sshd in mount namespaces (unshare -m) and need root';
  try {
    execFileSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
  } catch {
    return 'unshare -m failed: the remote tests need mount namespaces (root, util-linux)';
  }
  return undefined;
}

export interface TestHostOptions {
  /** The name macs knows it by (a key of `hosts`). */
  name: string;
  /**
   * What `macs` on the host's PATH runs: `real` (this checkout's
   * dist/main.js) or a fixture script (test/fixtures/fake-remote-macs.mjs)
   * given its mode, or `none` (no macs at all).
   */
  macs?: 'real' | 'none' | { fake: string };
  /**
   * The host's clock this many ms ahead of the hub's, for every macs process
   * it runs (test/fixtures/skewed-clock.mjs through `node --import`).
   */
  clockSkewMs?: number;
}

export interface TestHost {
  name: string;
  address: string;
  port: number;
  /** The ssh destination for `hosts.<name>.ssh` (an alias in the hub's config). */
  ssh: string;
  /** The host's private folder as the hub's tests see it (for assertions). */
  root: string;
  /** Where the host's `/root` (its home) and `/tmp` are, as the tests see them. */
  homeDir: string;
  tmpDir: string;
  /** The sshd process (a test may SIGSTOP it or kill it). */
  sshd: ChildProcess;
  /** Start (again) after `kill()`, on the same address, port and keys; nothing while it runs. */
  start: () => Promise<void>;
  kill: () => Promise<void>;
}

export interface TestHosts {
  hosts: TestHost[];
  /** The hub's ssh config file (`MACS_SSH_CONFIG`). */
  sshConfig: string;
  /** The hub's known_hosts. */
  knownHosts: string;
  /** The folder of every host and key (removed by `stop`). */
  dir: string;
  /** Replace a host's key (a changed host key: the hub must refuse it). */
  rotateHostKey: (host: TestHost) => Promise<void>;
  /** Write the hub's known_hosts again with the hosts' keys as they are now. */
  trustHostKeys: () => void;
  stop: () => Promise<void>;
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], {
    stdio: 'ignore',
  });
}

function portOpen(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Where a host sees this checkout, under its home (/root). */
const HOST_REPO_DIR = 'macs-checkout';

/**
 * A file of this checkout as a host sees it: the checkout may lie under
 * `/tmp`, which a host has its own of (a fresh clone in a temp folder).
 */
export function onHost(file: string): string {
  return path.join(`/root/${HOST_REPO_DIR}`, path.relative(REPO_ROOT, file));
}

function writeMacsWrapper(
  bin: string,
  macs: TestHostOptions['macs'],
  clockSkewMs = 0,
): void {
  mkdirSync(bin, { recursive: true, mode: 0o700 });
  if (macs === 'none') return;
  const script =
    macs === undefined || macs === 'real'
      ? onHost(MACS_BIN)
      : onHost(
          path.join(REPO_ROOT, 'test', 'fixtures', 'fake-remote-macs.mjs'),
        );
  const mode =
    macs !== undefined && macs !== 'real' ? `FAKE_MACS_MODE=${macs.fake} ` : '';
  const clock =
    clockSkewMs === 0
      ? ''
      : `export MACS_TEST_CLOCK_SKEW_MS=${clockSkewMs} NODE_OPTIONS="--import ${onHost(path.join(REPO_ROOT, 'test', 'fixtures', 'skewed-clock.mjs'))}"\n`;
  writeFileSync(
    path.join(bin, 'macs'),
    `#!/bin/sh\n${clock}${mode}exec ${process.execPath} ${script} "$@"\n`,
    { mode: 0o755 },
  );
}

/**
 * Start `options.length` hosts. Fails with a clear message where sshd or
 * mount namespaces cannot be had (never skips).
 */
export async function startTestHosts(
  options: readonly TestHostOptions[],
): Promise<TestHosts> {
  const missing = sshHostsMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-ssh-hosts-'));
  chmodSync(dir, 0o700);
  const userKey = path.join(dir, 'hub_key');
  keygen(userKey);
  const knownHosts = path.join(dir, 'known_hosts');
  const sshConfig = path.join(dir, 'ssh_config');
  const hosts: TestHost[] = [];
  const hostKeys = new Map<string, string>();

  const writeHubConfig = (): void => {
    writeFileSync(
      knownHosts,
      hosts
        .map(
          (h) =>
            `[${h.address}]:${h.port} ${readFileSync(hostKeys.get(h.name)! + '.pub', 'utf8').trim()}\n`,
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
  };

  for (const [i, option] of options.entries()) {
    const root = path.join(dir, option.name);
    const homeDir = path.join(root, 'home');
    const tmpDir = path.join(root, 'tmp');
    const sshdDir = path.join(tmpDir, 'sshd'); // /tmp/sshd inside the host
    mkdirSync(path.join(homeDir, '.ssh'), { recursive: true, mode: 0o700 });
    mkdirSync(sshdDir, { recursive: true, mode: 0o700 });
    chmodSync(tmpDir, 0o1777);
    const hostKey = path.join(sshdDir, 'host_key');
    keygen(hostKey);
    hostKeys.set(option.name, hostKey);
    writeFileSync(
      path.join(homeDir, '.ssh', 'authorized_keys'),
      readFileSync(`${userKey}.pub`),
      { mode: 0o600 },
    );
    // The non-interactive PATH of the host: its own bin first (`macs`).
    const bin = path.join(homeDir, 'bin');
    writeMacsWrapper(bin, option.macs, option.clockSkewMs);
    writeFileSync(
      path.join(homeDir, '.ssh', 'environment'),
      // A UTF-8 locale, as PAM gives a real host's sessions (this sshd runs
      // without PAM): a session started with none does not find its panes
      // (reported with this work; docs/remote.md).
      `PATH=/root/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nLANG=C.UTF-8\n`,
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
        'Subsystem sftp internal-sftp',
        '',
      ].join('\n'),
    );
    const host: TestHost = {
      name: option.name,
      address,
      port,
      ssh: `macs-test-${option.name}`,
      root,
      homeDir,
      tmpDir,
      sshd: undefined as unknown as ChildProcess,
      start: async () => {
        // Already running: a second sshd on the same port would fail, and
        // the one running would no longer be the one `kill` and `stop` end
        // (it ran on, its folders removed, until its time limit).
        const running = host.sshd as ChildProcess | undefined;
        if (running && running.exitCode === null && running.signalCode === null)
          return;
        const script = [
          'set -e',
          'mkdir -p /run/sshd',
          // The host's macs runs this checkout through a path of its own
          // (HOST_REPO), bound before anything below hides the checkout: a
          // macs installed on this machine (npm link, often this very
          // checkout) is not the host's, so its folder is hidden and only
          // /root/bin/macs is found; the checkout may lie under /tmp too.
          `mkdir -p ${homeDir}/${HOST_REPO_DIR}`,
          `mount --bind ${REPO_ROOT} ${homeDir}/${HOST_REPO_DIR}`,
          'for m in $(which -a macs 2>/dev/null); do mount -t tmpfs -o size=64k none "$(dirname "$(readlink -f "$m")")"; done',
          `mount --rbind ${homeDir} /root`,
          `mount --bind ${tmpDir} /tmp`,
          `exec timeout ${SSHD_LIFETIME_SEC} ${SSHD} -D -e -f /tmp/sshd/sshd_config`,
        ].join('\n');
        const child = spawn(
          'unshare',
          ['-m', '--propagation', 'private', 'sh', '-c', script],
          { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
        );
        let stderr = '';
        child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
        host.sshd = child;
        await waitFor(
          async () => {
            if (child.exitCode !== null)
              throw new Error(`sshd of ${option.name} ended: ${stderr}`);
            return portOpen(address, port);
          },
          { timeout: 20_000, message: `sshd of ${option.name} on ${address}` },
        );
      },
      kill: async () => {
        const child = host.sshd;
        if (child.exitCode !== null || child.signalCode !== null) return;
        const ended = new Promise((r) => child.once('exit', r));
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
        await ended;
      },
    };
    hosts.push(host);
  }
  writeHubConfig();
  await Promise.all(hosts.map((h) => h.start()));

  return {
    hosts,
    sshConfig,
    knownHosts,
    dir,
    trustHostKeys: writeHubConfig,
    rotateHostKey: async (host) => {
      await host.kill();
      const key = hostKeys.get(host.name)!;
      rmSync(key);
      rmSync(`${key}.pub`);
      keygen(key);
      // The hub keeps the old key in its known_hosts.
      await host.start();
    },
    stop: async () => {
      // The tmux servers macs started on a host outlive its sshd (they are
      // daemons): end each through ssh, on the host's own sockets only. A
      // host whose sshd a test killed (and did not start again, having
      // failed on the way) is started again for that.
      for (const h of hosts)
        if (h.sshd.exitCode !== null || h.sshd.signalCode !== null)
          await h.start().catch(() => undefined);
      await Promise.all(
        hosts.map(
          (h) =>
            new Promise<void>((resolve) => {
              const child = spawn(
                'ssh',
                ['-F', sshConfig, '-T', h.ssh, 'sh', '-s'],
                { stdio: ['pipe', 'ignore', 'ignore'] },
              );
              child.stdin?.end(
                'for s in /tmp/tmux-0/*; do [ -S "$s" ] && tmux -S "$s" kill-server; done; true\n',
              );
              const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
              child.on('exit', () => {
                clearTimeout(timer);
                resolve();
              });
            }),
        ),
      );
      await Promise.all(hosts.map((h) => h.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The hub's ssh processes connected to `host` with this test's ssh config
 * (another test file's hosts may have the same name).
 */
export function sshClientsOf(hosts: TestHosts, host: TestHost): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      return args[0]?.endsWith('ssh') &&
        args.includes(host.ssh) &&
        args.includes(hosts.sshConfig)
        ? [Number(entry)]
        : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}
