import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSlotLife,
  newSlot,
  type SlotLife,
} from '../../../src/bridge/fleet/agent-slot.js';
import type {
  MultiAgent,
  SharedBackend,
} from '../../../src/bridge/fleet/types.js';
import {
  createDeliverer,
  DEFAULT_DELIVERY_RULES,
} from '../../../src/typist/typist.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { AgentError } from '../../../src/errors.js';
import { createEventLog } from '../../../src/events/log.js';
import type { EventInput } from '../../../src/events/types.js';
import { ensureHomeDirs } from '../../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import { readAgentState } from '../../../src/state/store.js';
import { FakeTmuxClient } from '../../helpers/fake-tmux.js';

const controller: MultiAgent = {
  name: 'boss',
  role: 'controller',
  profile: {
    preset: 'generic',
    rules: DEFAULT_DELIVERY_RULES,
    classify: (screen) => (screen.includes('thinking') ? 'working' : 'idle'),
  },
};

describe("an agent's life in the fleet", () => {
  let paths: HomePaths;
  let tmux: FakeTmuxClient;
  let life: SlotLife;
  const events: EventInput[] = [];
  const notices: string[] = [];

  beforeEach(async () => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-slot-')));
    await ensureHomeDirs(paths);
    tmux = new FakeTmuxClient();
    events.length = 0;
    notices.length = 0;
    life = createSlotLife({
      paths,
      config: ConfigSchema.parse({}),
      tmux,
      events: createEventLog(paths),
      log: createSilentLogger(),
      backend: {} as SharedBackend,
      deliverer: createDeliverer(tmux),
      resolvePane: (agent) =>
        [...tmux.panes.values()].some((p) => p.agentTag === agent.name)
          ? Promise.resolve(
              [...tmux.panes.values()].find((p) => p.agentTag === agent.name)
                ?.id ?? '',
            )
          : Promise.reject(new AgentError(`no pane for ${agent.name}`)),
      onNotice: (line) => void notices.push(line),
      emit: (input) => {
        events.push(input);
        return Promise.resolve();
      },
    });
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('reports a problem once while it stays the same, and waits longer each time', async () => {
    const slot = newSlot(controller);
    const before = Date.now();
    await life.problem(slot, 'supervise', new Error('no pane for boss'));
    await life.problem(slot, 'supervise', new Error('no pane for boss'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/boss: no pane for boss \(trying again in 1s/);
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(slot.backoffMs).toBe(4000);
    expect(slot.nextTry).toBeGreaterThanOrEqual(before + 2000);
  });

  it('watches a controller: started, its state from the screen, dead, back again', async () => {
    const pane = tmux.addPane({ agentTag: 'boss', screen: 'idle ❯' });
    const slot = newSlot(controller);
    await life.begin(slot);
    expect(slot.status).toBe('running');
    expect(events.map((e) => e.type)).toEqual(['bridge.started']);
    expect((await readAgentState(paths, 'boss'))?.pane).toBe(pane.id);

    await life.watchController(slot, pane.id);
    expect((await readAgentState(paths, 'boss'))?.state).toBe('idle');
    pane.screen = 'thinking…';
    await life.watchController(slot, pane.id);
    expect((await readAgentState(paths, 'boss'))?.state).toBe('working');
    expect(events.at(-1)).toMatchObject({
      type: 'state.changed',
      data: { from: 'idle', to: 'working', source: 'screen' },
    });

    pane.dead = true;
    pane.deadStatus = 3;
    await life.markDead(slot, { ...pane });
    expect(slot.status).toBe('dead');
    const dead = await readAgentState(paths, 'boss');
    expect(dead).toMatchObject({ state: 'dead', exitCode: 3 });
    expect(events.slice(-2).map((e) => e.type)).toEqual([
      'state.changed',
      'agent.exited',
    ]);
    expect(notices.at(-1)).toMatch(/boss exited with status 3/);

    pane.dead = false;
    await life.revive(slot);
    expect(slot.status).toBe('running');
    const back = await readAgentState(paths, 'boss');
    expect(back?.exitCode).toBeUndefined();
    await life.end(slot);
    expect(slot.lock).toBeUndefined();
    expect(events.at(-1)).toMatchObject({
      type: 'bridge.stopped',
      data: { role: 'controller' },
    });
  });
});
