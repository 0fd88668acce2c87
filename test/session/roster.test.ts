import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { ensureHomeDirs } from '../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { createPaneRoster } from '../../src/session/pane-roster.js';
import { createSessionRoster } from '../../src/session/roster.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

describe('the roster: which agents a bridge supervises', () => {
  let paths: HomePaths;
  let tmux: FakeTmuxClient;

  beforeEach(async () => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-ro-')));
    await ensureHomeDirs(paths);
    tmux = new FakeTmuxClient();
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it("without a session: the config's agents, then panes tagged with a new name", async () => {
    const config = ConfigSchema.parse({
      workers: [{ name: 'w1', preset: 'generic', pane: '%7' }],
    });
    tmux.addPane({ id: '%1', agentTag: 'w1' });
    tmux.addPane({ id: '%2', agentTag: 'extra' });
    const roster = await createSessionRoster({
      record: undefined,
      config,
      tmux,
      paths,
    });
    expect(roster.agents.map((a) => [a.name, a.role])).toEqual([
      ['w1', 'worker'],
      ['extra', 'worker'],
    ]);
    // A pane given in the config is the agent's; a tagged one is found.
    expect(await roster.resolvePane(roster.agents[0]!)).toBe('%7');
    expect(await roster.resolvePane(roster.agents[1]!)).toBe('%2');
    // Its preset was detected: it follows the pane's program.
    expect(roster.agents[1]?.followsProgram).toBe(true);
    expect(roster.session).toBeUndefined();
    expect(await roster.launched()).toBeUndefined();

    tmux.addPane({ id: '%3', agentTag: 'later' });
    const added = await roster.findNewAgents?.(new Set(['w1', 'extra']));
    expect(added?.map((a) => a.name)).toEqual(['later']);
  });

  it('with no agent anywhere: says how to get one', async () => {
    await expect(
      createSessionRoster({
        record: undefined,
        config: ConfigSchema.parse({}),
        tmux,
        paths,
      }),
    ).rejects.toThrow(/no agents to supervise/);
  });

  it("one pane: the agent named by the pane's tag, its preset as named", async () => {
    tmux.addPane({ id: '%4', agentTag: 'solo' });
    const roster = await createPaneRoster({
      pane: '%4',
      preset: 'generic',
      config: ConfigSchema.parse({}),
      tmux,
      paths,
    });
    expect(roster.agents.map((a) => a.name)).toEqual(['solo']);
    expect(roster.agents[0]?.followsProgram).toBeUndefined();
    expect(roster.preset.name).toBe('generic');
    expect(await roster.resolvePane(roster.agents[0]!)).toBe('%4');
    await expect(
      createPaneRoster({
        pane: 'four',
        config: ConfigSchema.parse({}),
        tmux,
        paths,
      }),
    ).rejects.toThrow(/not a pane id like %3/);
  });
});
