import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { createEventLog, readEvents } from '../../src/events/log.js';
import { createLogger } from '../../src/log/logger.js';
import type { RemoteFleet } from '../../src/remote/remote-fleet.js';
import { listHeldAnswers } from '../../src/remote/held-answers.js';
import type { HostSession } from '../../src/remote/host-session.js';
import { RemoteError } from '../../src/remote/ssh-errors.js';
import { createSnapshotReader } from '../../src/state/snapshot.js';
import { runWebAction, type WebActionDeps } from '../../src/web/actions.js';
import {
  buildFleet,
  createWebHosts,
  findFleetAgent,
  findFleetRequest,
  type WebHosts,
} from '../../src/web/web-fleet.js';
import { createHomeFixture } from '../state/home-fixture.js';
import { makeAgent, makeRequest, makeSnapshot } from '../ui/fixtures.js';

// The page's fleet at a hub: each host's agents and requests as
// `<host>/<name>`, read through the remote fleet; the page's actions on a
// `<host>/<id>` go to that host through the forwarding `macs mcp` uses.
// The fake is at the boundary the web code meets: a RemoteFleet whose
// sessions answer the host's MCP tools as a host's `macs mcp` would.

interface FakeHost {
  agents: unknown[];
  requests: unknown[];
  lines?: string[];
}

function fakeFleet(hosts: Record<string, FakeHost | 'down'>) {
  const calls: { host: string; tool: string; args: unknown }[] = [];
  const session = (host: string, data: FakeHost): HostSession => ({
    host,
    version: '0.1.0',
    call: (tool, args) => {
      calls.push({ host, tool, args });
      switch (tool) {
        case 'list_agents':
          return Promise.resolve({ agents: data.agents });
        case 'list_requests':
          return Promise.resolve({ requests: data.requests });
        case 'read_screen':
          return Promise.resolve({ lines: data.lines ?? [] });
        default:
          return Promise.resolve({});
      }
    },
    ping: () => Promise.resolve(),
    onChange: () => () => undefined,
    ended: new Promise<string>(() => undefined),
    close: () => Promise.resolve(),
    pid: undefined,
  });
  const fleet: RemoteFleet = {
    targets: Object.keys(hosts).map((name) => ({
      name,
      destination: `dev@${name}`,
      home: '/srv/proj',
    })),
    session: (host) => {
      const data = hosts[host];
      if (data === undefined)
        return Promise.reject(new Error(`unknown ${host}`));
      if (data === 'down')
        return Promise.reject(
          new RemoteError(host, 'unreachable', 'cannot be reached', 'check it'),
        );
      return Promise.resolve(session(host, data));
    },
    states: () => [],
    onChange: () => () => undefined,
    close: () => Promise.resolve(),
  };
  return { fleet, calls };
}

const gpuAgent = {
  name: 'w1',
  preset: 'claude',
  state: 'approval',
  stateAgeSec: 30,
  pane: '%3',
  paused: false,
  bridgeRunning: true,
  pendingRequests: ['w1-q-1', 'w1-a-2'],
};
const gpuRequests = [
  {
    id: 'w1-q-1',
    agent: 'w1',
    type: 'question',
    stage: 'routed',
    priority: 'high',
    waitingForAnswer: true,
    ageSec: 12,
    firstLine: 'Which branch?',
  },
  {
    id: 'w1-a-2',
    agent: 'w1',
    type: 'approval',
    stage: 'routed',
    waitingForAnswer: true,
    ageSec: 3,
    firstLine: 'May I push?',
  },
];

describe('web fleet with hosts', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  const local = makeSnapshot({
    agents: [makeAgent({ name: 'worker-1' })],
    requests: [makeRequest({ waitingForPerson: false })],
  });

  it('lists every host agent and request as <host>/<name>, a host down with its error', async () => {
    const { fleet } = fakeFleet({
      gpu1: { agents: [gpuAgent], requests: gpuRequests },
      gpu2: 'down',
    });
    const hosts = await createWebHosts(fleet, fx.paths).read();
    const view = buildFleet(local, { allowSend: false }, hosts);

    expect(view.agents.map((a) => a.name)).toEqual(['worker-1', 'gpu1/w1']);
    const remote = findFleetAgent(view, 'gpu1/w1');
    expect(remote).toMatchObject({
      state: 'approval',
      pane: '%3',
      counts: { pending: 2, waitingForPerson: 2 },
    });
    // Its age from the host's (30 s at the read), the hub's clock since.
    expect(remote?.stateAgeMs).toBeGreaterThanOrEqual(30_000);
    expect(remote?.stateAgeMs).toBeLessThan(40_000);
    // Those waiting for a person first: the hosts' before the local one.
    expect(view.requests.map((r) => r.id)).toEqual([
      'gpu1/w1-q-1',
      'gpu1/w1-a-2',
      'worker-1-q-17',
    ]);
    expect(findFleetRequest(view, 'gpu1/w1-a-2')).toMatchObject({
      agent: 'gpu1/w1',
      type: 'approval',
      body: 'May I push?',
      attributes: { host: 'gpu1' },
    });
    expect(findFleetRequest(view, 'w1-q-1')).toBeUndefined();
    expect(view.totals).toMatchObject({
      agents: 2,
      pending: 3,
      waitingForPerson: 2,
    });
    expect(view.hosts).toEqual([
      expect.objectContaining({
        name: 'gpu1',
        link: 'up',
        version: '0.1.0',
        agents: 1,
        requests: 2,
        error: null,
        line: expect.stringMatching(
          /^gpu1 up · \d+ ms · macs 0\.1\.0 · 1 agent · 2 open \(2 waiting\)$/,
        ),
      }),
      expect.objectContaining({
        name: 'gpu2',
        link: 'down',
        agents: 0,
        error: expect.stringMatching(
          /gpu2: cannot be reached \(hint: check it\)$/,
        ),
        // The words of every door (remote/host-link.ts), said by the server.
        line: expect.stringMatching(
          /^gpu2 down.* · .*gpu2: cannot be reached \(hint: check it\)$/,
        ),
      }),
    ]);
  });

  it('without hosts the fleet is the home snapshot alone', () => {
    const view = buildFleet(local, { allowSend: false });
    expect(view.agents.map((a) => a.name)).toEqual(['worker-1']);
    expect(view.hosts).toEqual([]);
    expect(view.totals).toEqual(local.totals);
  });

  it('shows nothing of a host that sends a name macs refuses', async () => {
    const { fleet } = fakeFleet({
      evil: {
        agents: [{ ...gpuAgent, name: '../../etc' }],
        requests: [],
      },
    });
    const hosts = await createWebHosts(fleet, fx.paths).read();
    const view = buildFleet(local, { allowSend: false }, hosts);
    expect(view.agents.map((a) => a.name)).toEqual(['worker-1']);
    expect(view.hosts[0]).toMatchObject({
      link: 'down',
      error: expect.stringMatching(/refuses/),
    });
  });

  it("reads a host agent's screen through the host", async () => {
    const { fleet, calls } = fakeFleet({
      gpu1: { agents: [gpuAgent], requests: [], lines: ['$ make', 'ok'] },
    });
    const out = await createWebHosts(fleet, fx.paths).forward('read_screen', {
      agent: 'gpu1/w1',
    });
    expect(out?.data).toMatchObject({ lines: ['$ make', 'ok'] });
    expect(calls.at(-1)).toEqual({
      host: 'gpu1',
      tool: 'read_screen',
      args: { agent: 'w1' },
    });
  });

  describe('actions on a host request', () => {
    const signal = new AbortController().signal;
    let calls: ReturnType<typeof fakeFleet>['calls'];
    let hosts: WebHosts;
    let deps: WebActionDeps;
    /** A fake `ssh` on the PATH: the host's macs, noting each command it is given. */
    let sshDir: string;
    const sshCalls = () =>
      existsSync(path.join(sshDir, 'calls'))
        ? readFileSync(path.join(sshDir, 'calls'), 'utf8').trim().split('\n')
        : [];

    beforeEach(() => {
      sshDir = mkdtempSync(path.join(os.tmpdir(), 'macs-fake-ssh-'));
      writeFileSync(
        path.join(sshDir, 'ssh'),
        `#!/bin/sh\necho "$*" >> '${sshDir}/calls'\necho done\n`,
        { mode: 0o755 },
      );
      vi.stubEnv('PATH', `${sshDir}:${process.env.PATH ?? ''}`);
      const fake = fakeFleet({
        gpu1: { agents: [gpuAgent], requests: gpuRequests },
        gpu2: 'down',
      });
      calls = fake.calls;
      hosts = createWebHosts(fake.fleet, fx.paths);
      deps = {
        paths: fx.paths,
        config: ConfigSchema.parse({
          hosts: { gpu1: { ssh: 'gpu1.example', home: '/srv/macs' } },
        }),
        env: {},
        reader: createSnapshotReader(fx.paths),
        feed: { current: () => undefined },
        events: createEventLog(fx.paths),
        log: createLogger({ level: 'silent' }),
        forward: hosts.forward,
        refresh: () => Promise.resolve(),
      };
    });
    afterEach(() => {
      vi.unstubAllEnvs();
      rmSync(sshDir, { recursive: true, force: true });
    });

    const hostCalls = () => calls.filter((c) => !c.tool.startsWith('list_'));

    it("answers through the host's answer_request, with the host's own id", async () => {
      const reply = await runWebAction(
        deps,
        'answer',
        { id: 'gpu1/w1-q-1', text: 'Use main.', notes: 'from the page' },
        signal,
      );
      expect(reply).toMatchObject({ ok: true });
      expect(reply.message).toMatch(/answered gpu1\/w1-q-1 on gpu1/);
      expect(hostCalls()).toEqual([
        {
          host: 'gpu1',
          tool: 'answer_request',
          args: {
            id: 'w1-q-1',
            instructions: 'Use main.',
            notes: 'from the page',
            // The host records it as a person's at the hub.
            by: 'hub:web',
          },
        },
      ]);
      // Filed under `web` (a host's name is never a local events file).
      const events = await readEvents(fx.paths, { type: 'web.action' });
      expect(events[0]?.requestId).toBeUndefined();
      expect(events).toEqual([
        expect.objectContaining({
          agent: 'web',
          data: expect.objectContaining({
            by: 'web',
            action: 'answer',
            ok: true,
            remote: 'gpu1/w1-q-1',
          }),
        }),
      ]);
    });

    it("decides an approval through the host's decide_approval", async () => {
      const reply = await runWebAction(
        deps,
        'decide',
        { id: 'gpu1/w1-a-2', decision: 'deny', reason: ' not today ' },
        signal,
      );
      expect(reply.ok).toBe(true);
      expect(hostCalls()).toEqual([
        {
          host: 'gpu1',
          tool: 'decide_approval',
          args: {
            id: 'w1-a-2',
            decision: 'deny',
            reason: 'not today',
            by: 'hub:web',
          },
        },
      ]);
    });

    it('keeps an answer for a host that cannot be reached, and refuses a second', async () => {
      const reply = await runWebAction(
        deps,
        'answer',
        { id: 'gpu2/w1-q-9', text: 'Later.' },
        signal,
      );
      expect(reply).toMatchObject({ ok: true });
      expect(reply.message).toMatch(/kept and delivered once/);
      expect(await listHeldAnswers(fx.paths, 'gpu2')).toEqual([
        expect.objectContaining({ id: 'w1-q-9', instructions: 'Later.' }),
      ]);
      const again = await runWebAction(
        deps,
        'answer',
        { id: 'gpu2/w1-q-9', text: 'Now.' },
        signal,
      );
      expect(again.ok).toBe(false);
      expect(await listHeldAnswers(fx.paths, 'gpu2')).toHaveLength(1);
    });

    it('refuses an unknown host, and a host id when the home has no hosts', async () => {
      const unknown = await runWebAction(
        deps,
        'answer',
        { id: 'gpu9/w1-q-1', text: 'x' },
        signal,
      );
      expect(unknown).toMatchObject({ ok: false });
      expect(unknown.message).toMatch(/no host 'gpu9'/);
      const { forward: _, ...noHosts } = deps;
      const none = await runWebAction(
        noHosts,
        'decide',
        { id: 'gpu1/w1-a-2', decision: 'allow', reason: 'ok' },
        signal,
      );
      expect(none).toMatchObject({ ok: false });
      expect(none.message).toMatch(/has no hosts/);
      expect(hostCalls()).toEqual([]);
    });

    it("dismisses and pauses through the host's own macs; never types into a host agent", async () => {
      const dismissed = await runWebAction(
        deps,
        'dismiss',
        { id: 'gpu1/w1-q-1' },
        signal,
      );
      expect(dismissed).toEqual({ ok: true, message: 'gpu1: done' });
      expect(
        (await runWebAction(deps, 'pause', { agent: 'gpu1/w1' }, signal)).ok,
      ).toBe(true);
      const calls = sshCalls();
      expect(calls).toHaveLength(2);
      expect(calls[0]).toMatch(
        /gpu1\.example .*macs dismiss w1-q-1 --reason .*dismissed in macs web.* --home \/srv\/macs/,
      );
      expect(calls[1]).toMatch(/macs pause w1 --home \/srv\/macs/);
      const sent = await runWebAction(
        {
          ...deps,
          send: { runTmux: () => Promise.reject(new Error('typed')) },
        },
        'send',
        { agent: 'gpu1/w1', text: 'hi' },
        signal,
      );
      expect(sent).toMatchObject({ ok: false });
      expect(sent.message).toMatch(/macs send gpu1\/w1/);
      // A bad name is bad input, never a host call.
      const bad = await runWebAction(
        deps,
        'answer',
        { id: 'gpu1/../x', text: 'x' },
        signal,
      );
      expect(bad.message).toMatch(/bad input/);
      expect(hostCalls()).toEqual([]);
    });
  });
});
