/**
 * A macs session on a test host (test/helpers/ssh-hosts.ts): a home at
 * /root/proj on the host, workers that are fake agents, started by the
 * host's own macs over ssh, and a hub home whose config names the hosts.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FAKE_AGENT, type Step } from './macs.js';
import { onHost, type TestHost, type TestHosts } from './ssh-hosts.js';

/** The macs home on every test host (inside its namespace). */
export const HOST_HOME = '/root/proj';

/** A host's path as the tests see it. */
export function hostPath(host: TestHost, inside: string): string {
  if (inside.startsWith('/root/'))
    return path.join(host.homeDir, inside.slice('/root/'.length));
  if (inside.startsWith('/tmp/'))
    return path.join(host.tmpDir, inside.slice('/tmp/'.length));
  throw new Error(`not a host path: ${inside}`);
}

/** Run a command on a host over ssh (the tests' own calls, not macs's). */
export function sshRun(
  hosts: TestHosts,
  host: TestHost,
  command: string,
  input = '',
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'ssh',
      ['-F', hosts.sshConfig, '-T', host.ssh, command],
      { timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({
          exitCode: error ? ((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
        }),
    );
    child.stdin?.end(input);
  });
}

/** A fake-agent worker run on a host (its script written there). */
export function fakeHostWorker(
  host: TestHost,
  w: { name: string; script: Step[]; command?: string[] },
): Record<string, unknown> {
  const script = `${HOST_HOME}/${w.name}.script.json`;
  mkdirSync(hostPath(host, HOST_HOME), { recursive: true, mode: 0o700 });
  writeFileSync(hostPath(host, script), JSON.stringify(w.script));
  return {
    name: w.name,
    preset: 'generic',
    prompt: false,
    command: w.command ?? [
      process.execPath,
      onHost(FAKE_AGENT),
      '--script',
      script,
      '--record',
      `${HOST_HOME}/${w.name}.record.jsonl`,
    ],
  };
}

/** Write a host's config: fake-agent workers with their scripts. */
export function writeHostConfig(
  host: TestHost,
  workers: { name: string; script: Step[]; command?: string[] }[],
): void {
  const home = hostPath(host, HOST_HOME);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const config = { workers: workers.map((w) => fakeHostWorker(host, w)) };
  writeFileSync(path.join(home, 'macs.config.json'), JSON.stringify(config));
}

/** The record file of a host's fake worker, as the tests see it. */
export function hostRecord(host: TestHost, worker: string): string {
  return hostPath(host, `${HOST_HOME}/${worker}.record.jsonl`);
}

/** A hub config naming every test host. */
export function writeHubConfig(
  hubHome: string,
  hosts: TestHosts,
  extra: Record<string, unknown> = {},
): void {
  writeFileSync(
    path.join(hubHome, 'macs.config.json'),
    JSON.stringify({
      hosts: Object.fromEntries(
        hosts.hosts.map((h) => [h.name, { ssh: h.ssh, home: HOST_HOME }]),
      ),
      ...extra,
    }),
  );
}
