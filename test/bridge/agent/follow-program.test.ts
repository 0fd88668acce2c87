import { afterEach, describe, expect, it } from 'vitest';
import { createProgramFollower } from '../../../src/bridge/agent/follow-program.js';
import type { ProcessInfo } from '../../../src/tmux/processes.js';
import { createStageFixture, type StageFixture } from '../stage-fixture.js';

const CONFIG = {
  presets: {
    fake: { extends: 'generic', program: 'fake-agent', knownScreens: true },
  },
};

/** The pane's foreground as the follower reads it, set by each test step. */
let foreground: ProcessInfo[] | undefined;
const process = (argv: string[]): ProcessInfo => ({
  pid: 4300,
  ppid: 4242,
  argv,
  pgrp: 4300,
});

describe('the program follower', () => {
  let f: StageFixture;
  afterEach(() => f.cleanup());

  async function setUp() {
    f = await createStageFixture({
      config: CONFIG,
      profile: { preset: 'fake' },
      followsProgram: true,
    });
    const follower = createProgramFollower(f.ctx, () =>
      Promise.resolve(foreground),
    );
    const follow = (currentCommand: string) =>
      follower.follow({ ...f.pane, currentCommand });
    return follow;
  }

  it('an agent just exited, its shell not yet back in the foreground: no preset yet, and the next reading decides', async () => {
    const follow = await setUp();
    // tmux names the pane's own program (bash) while the agent's group is
    // empty, or holds only the ended agent not yet reaped.
    foreground = [];
    expect(await follow('bash')).toBe(false);
    foreground = [process([])];
    expect(await follow('bash')).toBe(false);
    expect(f.ctx.profile.preset).toBe('fake');
    expect(f.eventsOf('preset.changed')).toEqual([]);
    // The shell at its prompt again.
    foreground = [process(['-bash'])];
    expect(await follow('bash')).toBe(true);
    expect(f.ctx.profile.preset).toBe('shell');
    expect(f.eventsOf('preset.changed').map((e) => e.data)).toEqual([
      { from: 'fake', to: 'shell', program: 'bash', pane: f.pane.id },
    ]);
  });

  it('follows a program once: the same program again is not looked at', async () => {
    const follow = await setUp();
    foreground = [process(['-bash'])];
    expect(await follow('bash')).toBe(true);
    foreground = [process(['node', 'fake-agent'])];
    expect(await follow('bash')).toBe(false);
    expect(await follow('fake-agent')).toBe(true);
    expect(f.ctx.profile.preset).toBe('fake');
  });
});
