import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackendRequest } from '../../../src/backends/types.js';
import {
  createDeliverer,
  DEFAULT_DELIVERY_RULES,
} from '../../../src/typist/typist.js';
import {
  createMultiBridge,
  type MultiBridge,
} from '../../../src/bridge/fleet/multi-bridge.js';
import type {
  MultiAgent,
  SharedBackend,
} from '../../../src/bridge/fleet/types.js';
import type { AnswerHandler } from '../../../src/backends/types.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { AgentError } from '../../../src/errors.js';
import { createEventLog } from '../../../src/events/log.js';
import type { MacsEvent } from '../../../src/events/types.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { readAgentState } from '../../../src/state/store.js';
import { FakeTmuxClient } from '../../helpers/fake-tmux.js';
import { waitFor } from '../../helpers/wait-for.js';

const agent = (name: string, extra: Partial<MultiAgent> = {}): MultiAgent => ({
  name,
  role: 'worker',
  profile: {
    preset: 'generic',
    rules: { ...DEFAULT_DELIVERY_RULES, submitDelayMs: 0 },
    classify: () => 'idle',
  },
  ...extra,
});

describe('macs bridge --all: one process, every agent', () => {
  let home: string;
  let paths: HomePaths;
  let tmux: FakeTmuxClient;
  let bridge: MultiBridge | undefined;
  const events: MacsEvent[] = [];
  const notices: string[] = [];
  const submitted: BackendRequest[] = [];
  const registered: string[] = [];

  const backend: SharedBackend = {
    name: 'file',
    register: (name) => void registered.push(name),
    submit: (request) => {
      submitted.push(request);
      return Promise.resolve();
    },
    rescan: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };

  function start(
    agents: MultiAgent[],
    onPrompted?: (agent: string) => Promise<void>,
  ): Promise<void> {
    bridge = createMultiBridge({
      agents,
      paths,
      config: ConfigSchema.parse({ backstopMs: 20 }),
      tmux,
      events: createEventLog(paths, { onEvent: (e) => events.push(e) }),
      log: createSilentLogger(),
      backend,
      deliverer: createDeliverer(tmux, { pollMs: 5 }),
      resolvePane: (a) => {
        const pane = [...tmux.panes.values()].find(
          (p) => p.agentTag === a.name,
        );
        if (!pane)
          return Promise.reject(
            new AgentError(`no pane found for agent '${a.name}'`),
          );
        return Promise.resolve(pane.id);
      },
      onNotice: (line) => void notices.push(line),
      ...(onPrompted ? { onPrompted } : {}),
      healthPollMs: 20,
    });
    return bridge.start();
  }

  const status = (name: string) =>
    bridge?.snapshot().find((s) => s.agent === name);

  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-multi-'));
    paths = resolveHomePaths(home);
    tmux = new FakeTmuxClient();
    events.length = 0;
    notices.length = 0;
    submitted.length = 0;
    registered.length = 0;
  });

  afterEach(async () => {
    await bridge?.stop();
    bridge = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('reports an agent it cannot supervise once, keeps the others, and picks it up when its pane appears', async () => {
    tmux.addPane({ agentTag: 'good' });
    await start([agent('good'), agent('bad')]);
    expect(registered).toEqual(['good', 'bad']);
    expect(status('good')).toMatchObject({ status: 'running' });
    expect(status('bad')).toMatchObject({
      status: 'waiting',
      problem: "no pane found for agent 'bad'",
    });
    expect(
      events
        .filter((e) => e.agent === 'bad' && e.type === 'error')
        .map((e) => e.data?.where),
    ).toEqual(['supervise']);
    expect(notices.filter((l) => l.includes('bad'))).toHaveLength(1);
    expect(notices[0]).toMatch(/the other agents carry on/);
    expect(
      events.some((e) => e.agent === 'good' && e.type === 'bridge.started'),
    ).toBe(true);

    tmux.addPane({ agentTag: 'bad' });
    await waitFor(() => status('bad')?.status === 'running', {
      timeout: 5000,
      message: 'bad supervised',
    });
    expect(notices.at(-1)).toMatch(/bad: supervised again/);
  });

  it('takes an answer that comes while the agent is still starting', async () => {
    // A request on the screen at start is routed during start(); an instant
    // answerer replies before start() returns. It must not be dropped.
    const handlers = new Map<string, AnswerHandler>();
    const verdicts: string[] = [];
    const instant: SharedBackend = {
      ...backend,
      register: (name, onAnswer) => void handlers.set(name, onAnswer),
      submit: (request) => {
        submitted.push(request);
        // Answered at once, as an instant exec answerer does: after this
        // submit returns, while the supervisor goes on starting.
        setImmediate(() => {
          void handlers
            .get(request.agent)?.({
              id: request.id,
              text: 'go on',
              source: 'test',
            })
            .then((verdict) => verdicts.push(verdict));
        });
        return Promise.resolve();
      },
    };
    tmux.addPane({
      agentTag: 'quick',
      screen:
        '<<CONTROLLER_REQUEST id=q1>>\nready?\n<<CONTROLLER_REQUEST_END>>\n❯ ',
    });
    bridge = createMultiBridge({
      agents: [agent('quick')],
      paths,
      config: ConfigSchema.parse({ backstopMs: 20 }),
      tmux,
      events: createEventLog(paths, { onEvent: (e) => events.push(e) }),
      log: createSilentLogger(),
      backend: instant,
      deliverer: createDeliverer(tmux, { pollMs: 5 }),
      resolvePane: () => Promise.resolve([...tmux.panes.keys()][0] ?? ''),
      onNotice: (line) => void notices.push(line),
      healthPollMs: 20,
    });
    await bridge.start();
    await waitFor(() => verdicts.length > 0, { message: 'the answer given' });
    expect(verdicts).toEqual(['accepted']);
    await waitFor(
      () =>
        events.some(
          (e) => e.type === 'request.answered' && e.requestId === 'quick-q1',
        ),
      { message: 'the answer recorded' },
    );
  });

  it('marks a block found on the screen at start as seen only once it is recorded', async () => {
    // A bridge killed while it records what the screen showed at start must
    // find the rest again: the state on disk never calls a block seen that
    // is not recorded yet.
    const snapshots: { seen: number; recorded: number }[] = [];
    tmux.addPane({
      agentTag: 'scan',
      screen: [1, 2, 3]
        .map(
          (n) =>
            `<<CONTROLLER_REQUEST id=s${n}>>\nquestion ${n}\n<<CONTROLLER_REQUEST_END>>`,
        )
        .concat('❯ ')
        .join('\n'),
    });
    bridge = createMultiBridge({
      agents: [agent('scan')],
      paths,
      config: ConfigSchema.parse({ backstopMs: 20 }),
      tmux,
      events: createEventLog(paths, {
        onEvent: (e) => {
          if (e.type !== 'request.detected') return;
          const saved = JSON.parse(
            readFileSync(path.join(paths.state, 'scan.json'), 'utf8'),
          ) as { screenSeen?: string[]; requests: Record<string, unknown> };
          snapshots.push({
            seen: saved.screenSeen?.length ?? 0,
            recorded: Object.keys(saved.requests).length,
          });
        },
      }),
      log: createSilentLogger(),
      backend,
      deliverer: createDeliverer(tmux, { pollMs: 5 }),
      resolvePane: () => Promise.resolve([...tmux.panes.keys()][0] ?? ''),
      onNotice: (line) => void notices.push(line),
      healthPollMs: 20,
    });
    await bridge.start();
    await waitFor(() => snapshots.length >= 3, { message: 'three detected' });
    for (const snapshot of snapshots)
      expect(snapshot.seen).toBeLessThanOrEqual(snapshot.recorded);
  });

  it('marks an agent whose program ended dead with its exit status, leaves the others, and resumes it when it runs again', async () => {
    const a = tmux.addPane({ agentTag: 'a' });
    tmux.addPane({ agentTag: 'b' });
    await start([agent('a'), agent('b')]);
    a.dead = true;
    a.deadStatus = 3;
    await waitFor(
      async () => (await readAgentState(paths, 'a'))?.exitCode === 3,
      { message: 'a dead' },
    );
    expect(await readAgentState(paths, 'a')).toMatchObject({
      state: 'dead',
      stateSource: 'pane',
      exitCode: 3,
    });
    await waitFor(() =>
      events.some((e) => e.agent === 'a' && e.type === 'agent.exited'),
    );
    expect(
      events.find((e) => e.agent === 'a' && e.type === 'agent.exited')?.data,
    ).toEqual({ pane: a.id, exitCode: 3, lastLines: ['❯'] });
    // Why it ended stays on the agent's state for people to read.
    expect((await readAgentState(paths, 'a'))?.lastLines).toEqual(['❯']);
    expect(status('b')).toMatchObject({ status: 'running' });

    // Killed by a signal: exit code 128 + N, and the signal.
    a.dead = false;
    await waitFor(() => status('a')?.status === 'running', {
      message: 'a back',
    });
    expect((await readAgentState(paths, 'a'))?.exitCode).toBeUndefined();
    a.dead = true;
    a.deadStatus = undefined;
    a.deadSignal = 9;
    await waitFor(
      async () => (await readAgentState(paths, 'a'))?.exitSignal === 9,
      { message: 'a killed' },
    );
    expect(await readAgentState(paths, 'a')).toMatchObject({
      state: 'dead',
      exitCode: 137,
      exitSignal: 9,
    });

    // tmux has not reaped the process yet: the bridge nudges it and gets the status.
    const b = tmux.panes.get('%1');
    if (!b) throw new Error('no pane %1');
    b.dead = true;
    b.unreaped = { status: 42 };
    await waitFor(
      async () => (await readAgentState(paths, 'b'))?.exitCode === 42,
      { message: 'b dead with its status' },
    );
    expect(tmux.commands).toContainEqual(['run-shell', 'true']);
  });

  it('types the first message once the pane has settled, records it, and closes an echo of its example', async () => {
    const pane = tmux.addPane({ agentTag: 'w', screen: 'agent ready\n❯ ' });
    const prompted: string[] = [];
    const example = 'What you need decided.';
    const { hashBody } = await import('../../../src/protocol/ids.js');
    await start(
      [
        agent('w', {
          firstMessage: {
            text: 'macs: you are w\nthe protocol',
            exampleHashes: new Set([hashBody(example)]),
            sent: false,
          },
        }),
      ],
      (name) => {
        prompted.push(name);
        return Promise.resolve();
      },
    );
    await waitFor(() => prompted.length === 1, {
      timeout: 5000,
      message: 'prompted',
    });
    expect(tmux.sent).toEqual([
      { pane: pane.id, text: 'macs: you are w\nthe protocol' },
    ]);
    expect(events.find((e) => e.type === 'agent.prompted')?.data).toMatchObject(
      { pane: pane.id, method: 'paste' },
    );
    expect(registered).toEqual(['w']);

    // The agent shows what it was sent: the example request comes back on its screen.
    appendFileSync(
      path.join(paths.panes, 'w.log'),
      `<<CONTROLLER_REQUEST id=example-1 type=question>>\n${example}\n<<CONTROLLER_REQUEST_END>>\n`,
    );
    await waitFor(
      () =>
        events.some((e) => e.agent === 'w' && e.type === 'request.archived'),
      {
        timeout: 5000,
        message: 'echo closed',
      },
    );
    expect(submitted).toEqual([]);
    expect(events.filter((e) => e.agent === 'w').map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'request.detected',
        'warning',
        'request.answered-empty',
        'request.archived',
      ]),
    );
  });

  it('records the controller as an agent with its state', async () => {
    tmux.addPane({ agentTag: 'boss' });
    await start([agent('boss', { role: 'controller' })]);
    await waitFor(
      async () => (await readAgentState(paths, 'boss'))?.state === 'idle',
      { message: 'controller idle' },
    );
    expect(registered).toEqual([]);
  });
});

describe('macs bridge --worker-pane: a fleet of one', () => {
  let home: string;
  let tmux: FakeTmuxClient;
  let bridge: MultiBridge | undefined;
  const events: MacsEvent[] = [];

  const backend: SharedBackend = {
    name: 'file',
    register: () => undefined,
    submit: () => Promise.resolve(),
    rescan: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };

  function start(pane: string, onPaneGone: (error: Error) => void) {
    const paths = resolveHomePaths(home);
    bridge = createMultiBridge({
      agents: [agent('w1')],
      paths,
      config: ConfigSchema.parse({ backstopMs: 20 }),
      tmux,
      events: createEventLog(paths, { onEvent: (e) => events.push(e) }),
      log: createSilentLogger(),
      backend,
      deliverer: createDeliverer(tmux, { pollMs: 5 }),
      resolvePane: () => Promise.resolve(pane),
      onNotice: () => undefined,
      healthPollMs: 20,
      single: { onPaneGone },
    });
    return bridge.start();
  }

  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-single-'));
    tmux = new FakeTmuxClient();
    events.length = 0;
  });
  afterEach(async () => {
    await bridge?.stop();
    bridge = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('says at once why its agent cannot be supervised, instead of retrying', async () => {
    tmux.addPane({ id: '%1', agentTag: 'someone-else' });
    await expect(start('%1', () => undefined)).rejects.toThrow(
      /belongs to agent 'someone-else'/,
    );
  });

  it('stops when its pane is gone, seen by the health loop, not left to a slow reading', async () => {
    tmux.addPane({ id: '%1' });
    tmux.addPane({ id: '%2' }); // the server runs on
    const gone: Error[] = [];
    await start('%1', (error) => void gone.push(error));
    expect(bridge?.snapshot()).toEqual([
      { agent: 'w1', status: 'running', pane: '%1' },
    ]);
    tmux.panes.delete('%1');
    await waitFor(() => gone[0], { message: 'pane gone reported' });
    expect(gone[0]?.message).toMatch(/pane %1 of agent 'w1' is gone/);
    // Never taken for dead and followed elsewhere, as a fleet would.
    expect(events.some((e) => e.type === 'agent.exited')).toBe(false);
  });
});
