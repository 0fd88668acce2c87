import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  listSessionProcesses,
  listTaggedProcesses,
  processTree,
  selfAndAncestors,
  sessionProcesses,
  type ProcEntry,
} from '../../src/session/session-processes.js';
import { waitFor } from '../helpers/wait-for.js';

describe('processTree', () => {
  it('follows children through any depth and session, and takes every process in the session of a root', () => {
    const table: ProcEntry[] = [
      { pid: 1, ppid: 0, sid: 1 },
      // A pane's program (a session leader) and its child.
      { pid: 10, ppid: 1, sid: 10 },
      { pid: 11, ppid: 10, sid: 10 },
      // A daemon the child started in a session of its own, and its child.
      { pid: 12, ppid: 11, sid: 12 },
      { pid: 13, ppid: 12, sid: 12 },
      // In the pane's session, though its parent is gone.
      { pid: 14, ppid: 1, sid: 10 },
      // Nothing to do with the pane.
      { pid: 20, ppid: 1, sid: 20 },
    ];
    expect(processTree(table, new Set([10])).sort((a, b) => a - b)).toEqual([
      10, 11, 12, 13, 14,
    ]);
    // A root that no longer runs is not in the answer.
    expect(processTree(table, new Set([99]))).toEqual([]);
  });
});

describe.runIf(process.platform === 'linux')(
  'the processes of a session (real processes, Linux /proc)',
  () => {
    const children: ChildProcess[] = [];
    afterEach(() => {
      for (const child of children.splice(0)) {
        try {
          // Detached children lead their own process group.
          process.kill(-(child.pid ?? 0), 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
    });

    /**
     * `sh` with a `sleep` child, in a session of its own (with `unshare`,
     * in a mount namespace of its own too: needs root).
     */
    async function startSession(
      env: NodeJS.ProcessEnv = process.env,
      unshare = false,
    ): Promise<number> {
      const sh = ['sh', '-c', 'sleep 30 & wait'];
      const [command, ...args] = unshare
        ? ['unshare', '-m', '--propagation', 'private', ...sh]
        : sh;
      const child = spawn(command ?? 'sh', args, {
        detached: true,
        stdio: 'ignore',
        env,
      });
      children.push(child);
      const pid = child.pid ?? 0;
      // Started once `sh` has its `sleep`.
      await waitFor(
        async () => (await listSessionProcesses(new Set([pid]))).length >= 2,
        { message: 'sh started sleep' },
      );
      return pid;
    }

    it('lists every process in the sessions led by the given pids', async () => {
      const leader = await startSession();
      const found = await listSessionProcesses(new Set([leader]));
      expect(found).toContain(leader);
      expect(found.length).toBeGreaterThanOrEqual(2);
      expect(found).not.toContain(process.pid);
    });

    it('finds the processes tagged for this home and server, and only those', async () => {
      const home = `/tmp/macs-test-home-${String(process.pid)}`;
      const socket = `macs-test-${String(process.pid)}`;
      const tagged = await startSession({
        ...process.env,
        MACS_AGENT: 'worker-1',
        MACS_HOME: home,
        MACS_TMUX_SOCKET: socket,
      });
      // The same home and server, but no agent: not macs's to end.
      const untagged = await startSession({
        ...process.env,
        MACS_HOME: home,
        MACS_TMUX_SOCKET: socket,
      });
      const found = await listTaggedProcesses(home, socket);
      expect(found).toContain(tagged);
      expect(found.length).toBeGreaterThanOrEqual(2);
      expect(found).not.toContain(untagged);
      expect(await listTaggedProcesses(home, 'another-socket')).toEqual([]);

      const all = await sessionProcesses(new Set([untagged]), home, socket);
      expect(all).toEqual(expect.arrayContaining([tagged, untagged]));
      expect(
        await sessionProcesses(new Set([untagged]), home, undefined),
      ).not.toContain(tagged);
    });

    it('leaves alone a process tagged alike in another mount namespace (another host on this machine)', async () => {
      // Test hosts on one machine (docs/remote.md) share the home path and
      // socket name, and the pid namespace: `macs stop` on one ended the
      // agents of the others.
      const home = `/tmp/macs-test-home-ns-${String(process.pid)}`;
      const socket = `macs-test-ns-${String(process.pid)}`;
      const env = {
        ...process.env,
        MACS_AGENT: 'worker-1',
        MACS_HOME: home,
        MACS_TMUX_SOCKET: socket,
      };
      const here = await startSession(env);
      const elsewhere = await startSession(env, true);
      const found = await listTaggedProcesses(home, socket);
      expect(found).toContain(here);
      expect(found).not.toContain(elsewhere);
    });

    it('spares this process and its ancestors, not its children', async () => {
      const child = await startSession();
      const spare = await selfAndAncestors();
      expect(spare.has(process.pid)).toBe(true);
      expect(spare.has(process.ppid)).toBe(true);
      expect(spare.has(child)).toBe(false);
    });
  },
);
