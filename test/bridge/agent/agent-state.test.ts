import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentProfile } from '../../../src/bridge/agent-context.js';
import {
  ACTIVITY_QUIET_MS,
  createAgentStateReader,
  type AgentStateReader,
  STATE_BACKSTOP_MS,
  STATE_QUIET_BACKSTOP_MS,
} from '../../../src/bridge/agent/agent-state.js';
import { DEFAULT_DELIVERY_RULES } from '../../../src/typist/typist.js';
import type { RequestSteps } from '../../../src/bridge/requests/request-steps.js';
import { AgentError } from '../../../src/errors.js';
import { getPreset } from '../../../src/config/presets/index.js';
import { classifyScreen } from '../../../src/screen/classify.js';
import {
  createActivityTracker,
  type ActivityTracker,
} from '../../../src/screen/activity.js';
import type { AgentStateName } from '../../../src/config/states.js';
import type { StateSource } from '../../../src/state/types.js';
import type { PaneInfo } from '../../../src/tmux/client.js';
import { waitFor } from '../../helpers/wait-for.js';
import { createStageFixture, type StageFixture } from '../stage-fixture.js';

const SCREENS = path.join(import.meta.dirname, '../../fixtures/screens');
const IDLE = 'Done.\n❯ ';
const WORKING = '✻ Thinking… (esc to interrupt)';
const PLAIN = 'some output without a prompt';

type Resolve = (
  observed: AgentStateName,
  source: StateSource,
) => Promise<{ state: AgentStateName; source: StateSource }>;

describe('agent state', () => {
  let f: StageFixture;
  let reader: AgentStateReader;
  let steps: RequestSteps;
  let activity: ActivityTracker;
  let resolve: Resolve;
  let resolved: [AgentStateName, StateSource][];
  let observed: [string, AgentStateName][];
  let synced: PaneInfo[];
  let idleScreens: string[];
  let paneGone: AgentError[];

  afterEach(async () => {
    vi.useRealTimers();
    reader.stop();
    // A reading that was still ending records its state under `serial`:
    // let it finish before the home is removed.
    await f.ctx.serial(() => Promise.resolve());
    f.cleanup();
  });

  async function setup(
    options: {
      profile?: Partial<AgentProfile>;
      screen?: string;
      onPaneGone?: boolean;
    } = {},
  ): Promise<void> {
    f = await createStageFixture({
      profile: options.profile ?? {},
      pane: { screen: options.screen ?? IDLE, currentCommand: 'node' },
    });
    steps = f.createSteps().steps;
    activity = createActivityTracker({ quietMs: ACTIVITY_QUIET_MS });
    resolve = (state, source) => Promise.resolve({ state, source });
    resolved = [];
    observed = [];
    synced = [];
    idleScreens = [];
    paneGone = [];
    reader = createAgentStateReader(f.ctx, {
      steps,
      activity,
      resolveState: (state, source) => {
        resolved.push([state, source]);
        return resolve(state, source);
      },
      observe: (seen) => {
        if (seen.type === 'screen') observed.push([seen.screen, seen.state]);
        else if (seen.type === 'size') synced.push(seen.info);
        else idleScreens.push(seen.screen);
        return Promise.resolve();
      },
      ...(options.onPaneGone === false
        ? {}
        : { onPaneGone: (error: AgentError) => void paneGone.push(error) }),
    });
  }

  const stateChanges = () =>
    f.eventsOf('state.changed').map((e) => e.data ?? {});
  const displayCalls = () =>
    f.tmux.commands.filter((c) => c[0] === 'display-message').length;

  describe('a dead pane', () => {
    it('is dead, with its exit status and last lines, asked once per death', async () => {
      await setup({ screen: 'Error: boom\n\n$ ' });
      Object.assign(f.pane, { dead: true, deadStatus: 3 });
      expect(await reader.observeState()).toEqual({
        state: 'dead',
        typing: 'dead',
      });
      expect(f.state()).toMatchObject({
        state: 'dead',
        stateSource: 'pane',
        exitCode: 3,
        lastLines: ['Error: boom', '$'],
      });
      expect(stateChanges()).toEqual([
        {
          from: 'unknown',
          to: 'dead',
          source: 'pane',
          pane: '%5',
          exitCode: 3,
          lastLines: ['Error: boom', '$'],
        },
      ]);
      expect(observed).toEqual([['', 'dead']]);
      expect(displayCalls()).toBe(1);
      expect(await reader.readState()).toBe('dead');
      expect(displayCalls()).toBe(1);
      expect(stateChanges()).toHaveLength(1);
      // Nothing is read from a dead pane's screen.
      expect(resolved).toEqual([]);
      expect(idleScreens).toEqual([]);
    });

    it('by a signal: exit code 128 + N', async () => {
      await setup();
      Object.assign(f.pane, { dead: true, deadSignal: 9 });
      await reader.readState();
      expect(f.state()).toMatchObject({ exitCode: 137, exitSignal: 9 });
    });

    it('runs again once respawned: the old exit status is history', async () => {
      await setup();
      Object.assign(f.pane, { dead: true, deadStatus: 1 });
      await reader.readState();
      Object.assign(f.pane, { dead: false, deadStatus: undefined });
      expect(await reader.readState()).toBe('idle');
      expect(f.state()).not.toHaveProperty('exitCode');
      expect(f.state()).not.toHaveProperty('lastLines');
    });

    it('a pane tmux no longer knows is dead, and its owner is told', async () => {
      await setup();
      f.tmux.addPane({ id: '%9' }); // the server still runs
      f.tmux.panes.delete(f.pane.id);
      expect(await reader.readState()).toBe('dead');
      expect(f.state()).toMatchObject({ state: 'dead', stateSource: 'pane' });
      await waitFor(() => paneGone.length === 1);
    });
  });

  describe('the screen', () => {
    it("is read by the preset's rules, with the rule that matched", async () => {
      await setup({
        profile: {
          classifyScreen: (screen) =>
            screen.includes('❯')
              ? { state: 'idle', rule: 'idle:prompt' }
              : { state: 'unknown' },
        },
      });
      expect(await reader.observeState()).toEqual({
        state: 'idle',
        typing: 'idle',
      });
      expect(f.state()).toMatchObject({ state: 'idle', stateSource: 'screen' });
      expect(stateChanges()).toEqual([
        {
          from: 'unknown',
          to: 'idle',
          source: 'screen',
          pane: '%5',
          rule: 'idle:prompt',
        },
      ]);
      expect(resolved).toEqual([['idle', 'screen']]);
      expect(observed).toEqual([[IDLE, 'idle']]);
      expect(synced.map((i) => [i.id, i.width, i.height])).toEqual([
        ['%5', 80, 24],
      ]);
    });

    it('an idle screen goes to the heuristics; a busy one does not', async () => {
      await setup();
      await reader.readState();
      expect(idleScreens).toEqual([IDLE]);
      f.pane.screen = WORKING;
      expect(await reader.readState()).toBe('working');
      expect(idleScreens).toEqual([IDLE]);
    });

    it('records a change once, and the source that agrees now', async () => {
      await setup();
      await reader.readState();
      resolve = (state) => Promise.resolve({ state, source: 'hook' });
      await reader.readState();
      expect(stateChanges()).toHaveLength(1);
      expect(f.state()).toMatchObject({ state: 'idle', stateSource: 'hook' });
    });
  });

  describe('output activity, when no rule reads the screen', () => {
    it('is working while output came lately, and unknown once quiet', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2025-03-01T12:00:00.000Z'));
      await setup({ screen: PLAIN });
      activity.onOutput(Date.now());
      expect(await reader.observeState()).toEqual({
        state: 'working',
        typing: 'unknown',
      });
      expect(f.state()).toMatchObject({
        state: 'working',
        stateSource: 'activity',
      });
      expect(resolved).toEqual([['working', 'activity']]);
      vi.setSystemTime(Date.now() + ACTIVITY_QUIET_MS);
      expect(await reader.observeState()).toEqual({
        state: 'unknown',
        typing: 'unknown',
      });
      expect(f.state().stateSource).toBe('activity');
    });
  });

  describe("the hooks' state", () => {
    it('wins over the screen, for the record and for typing', async () => {
      await setup();
      resolve = () => Promise.resolve({ state: 'working', source: 'hook' });
      expect(await reader.observeState()).toEqual({
        state: 'working',
        typing: 'working',
      });
      expect(f.state()).toMatchObject({
        state: 'working',
        stateSource: 'hook',
      });
      expect(stateChanges()[0]).toMatchObject({
        to: 'working',
        source: 'hook',
      });
      expect(stateChanges()[0]).not.toHaveProperty('rule');
      // A dialog is looked for on the screen's own reading.
      expect(observed).toEqual([[IDLE, 'idle']]);
      expect(idleScreens).toEqual([]);
    });

    it('when the screen wins, typing goes by the screen alone', async () => {
      await setup({ screen: PLAIN });
      resolve = () => Promise.resolve({ state: 'working', source: 'screen' });
      expect(await reader.observeState()).toEqual({
        state: 'working',
        typing: 'unknown',
      });
    });
  });

  describe('a known agent and its shell', () => {
    it('exiting to its shell is dead; started there again ends what the old one asked', async () => {
      await setup({ profile: { knownScreens: true } });
      f.pane.currentCommand = 'claude';
      expect(await reader.readState()).toBe('idle');
      const asked = f.addRecord({ stage: 'routed' });
      const relaunched = vi.spyOn(steps, 'onRelaunchedInShell');

      f.pane.currentCommand = 'bash';
      f.pane.screen = 'Goodbye!\nuser@host:~$ ';
      expect(await reader.observeState()).toEqual({
        state: 'dead',
        typing: 'dead',
      });
      expect(stateChanges().at(-1)).toEqual({
        from: 'idle',
        to: 'dead',
        source: 'pane',
        pane: '%5',
        lastLines: ['Goodbye!', 'user@host:~$'],
        exitedTo: 'bash',
      });
      expect(f.state().lastLines).toEqual(['Goodbye!', 'user@host:~$']);
      // Still the shell: still dead, nothing ended yet.
      expect(await reader.readState()).toBe('dead');
      expect(relaunched).not.toHaveBeenCalled();
      expect(asked.stage).toBe('routed');

      f.pane.currentCommand = 'claude';
      f.pane.screen = IDLE;
      expect(await reader.readState()).toBe('idle');
      expect(relaunched).toHaveBeenCalledTimes(1);
      expect(relaunched).toHaveBeenCalledWith('claude');
      expect(asked.stage).toBe('expired');
      // How the old run ended is history once the agent runs again.
      expect(f.state().lastLines).toBeUndefined();
      // What the new program asks is its own.
      const askedAgain = f.addRecord({ stage: 'routed' });
      await reader.readState();
      expect(relaunched).toHaveBeenCalledTimes(1);
      expect(askedAgain.stage).toBe('routed');
    });

    // Issue 24: Codex that stopped on a configuration error before the
    // bridge's first reading left its message and the shell's prompt; the
    // bridge had never seen it run, so it read the screen, which said
    // `idle`, and a delivery would have typed into the shell. Strategy: the
    // real codex preset reads the captured screen; the pane's program is the
    // shell from the first reading on.
    it('an agent that exited before the first reading, its shell prompt back, is dead', async () => {
      const preset = getPreset('codex');
      await setup({
        profile: {
          knownScreens: true,
          classify: (screen) => classifyScreen(screen, preset).state,
          classifyScreen: (screen) => classifyScreen(screen, preset),
        },
        screen: readFileSync(
          path.join(
            SCREENS,
            'codex/error/config-error-exited-to-shell-0.169.0.txt',
          ),
          'utf8',
        ),
      });
      f.pane.currentCommand = 'bash';
      expect(await reader.observeState()).toEqual({
        state: 'dead',
        typing: 'dead',
      });
      expect(stateChanges().at(-1)).toMatchObject({
        to: 'dead',
        source: 'pane',
        exitedTo: 'bash',
      });
      expect(f.state().lastLines?.at(-1)).toBe('dev@box:~/project#');
    });

    it('a shell before the agent ever ran is read by the screen', async () => {
      await setup({ profile: { knownScreens: true } });
      f.pane.currentCommand = 'zsh';
      expect(await reader.readState()).toBe('idle');
    });

    it('without knownScreens a shell is a program like any other', async () => {
      await setup();
      f.pane.currentCommand = 'claude';
      await reader.readState();
      f.pane.currentCommand = 'bash';
      expect(await reader.readState()).toBe('idle');
    });
  });

  describe('the program in the pane restarted', () => {
    it('ends what the old program asked (steps.onProgramRestarted)', async () => {
      await setup();
      const asked = f.addRecord({ stage: 'answered' });
      const restarted = vi.spyOn(steps, 'onProgramRestarted');
      f.pane.pid = 5001;
      expect(await reader.readState()).toBe('idle');
      expect(restarted).toHaveBeenCalledWith(5001);
      expect(f.ctx.panePid).toBe(5001);
      expect(asked.stage).toBe('expired');
      await reader.readState();
      expect(restarted).toHaveBeenCalledTimes(1);
    });

    it('is not looked for before the pid is known, nor in a dead pane', async () => {
      await setup();
      const restarted = vi.spyOn(steps, 'onProgramRestarted');
      f.ctx.panePid = undefined;
      f.pane.pid = 5001;
      await reader.readState();
      f.ctx.panePid = 4242;
      Object.assign(f.pane, { dead: true, deadStatus: 0 });
      await reader.readState();
      expect(restarted).not.toHaveBeenCalled();
    });
  });

  describe('deliveryState', () => {
    it('reuses a recent "not now" reading, reads afresh once it is old', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2025-03-01T12:00:00.000Z'));
      await setup({ screen: WORKING });
      const captures = vi.spyOn(f.tmux, 'capturePane');
      expect(await reader.readState()).toBe('working');
      expect(captures).toHaveBeenCalledTimes(1);
      f.pane.screen = IDLE;
      vi.setSystemTime(Date.now() + 249);
      expect(await reader.deliveryState()).toBe('working');
      expect(captures).toHaveBeenCalledTimes(1);
      vi.setSystemTime(Date.now() + 1);
      expect(await reader.deliveryState()).toBe('idle');
      expect(captures).toHaveBeenCalledTimes(2);
    });

    it('never reuses a reading that allows typing', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      await setup();
      const captures = vi.spyOn(f.tmux, 'capturePane');
      expect(await reader.deliveryState()).toBe('idle');
      f.pane.screen = WORKING;
      expect(await reader.deliveryState()).toBe('working');
      expect(captures).toHaveBeenCalledTimes(2);
    });

    it('never reuses a dead reading', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      await setup();
      Object.assign(f.pane, { dead: true, deadStatus: 0 });
      expect(await reader.deliveryState()).toBe('dead');
      Object.assign(f.pane, { dead: false });
      expect(await reader.deliveryState()).toBe('idle');
    });

    it("reuses a known agent's unknown screen (never typed into)", async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      await setup({
        screen: PLAIN,
        profile: {
          rules: { ...DEFAULT_DELIVERY_RULES, typeIntoUnknown: false },
        },
      });
      const captures = vi.spyOn(f.tmux, 'capturePane');
      expect(await reader.deliveryState()).toBe('unknown');
      f.pane.screen = IDLE;
      expect(await reader.deliveryState()).toBe('unknown');
      expect(captures).toHaveBeenCalledTimes(1);
    });
  });

  describe('notePaneGone', () => {
    it('tells the owner once that the pane is gone', async () => {
      await setup();
      f.addRecord();
      f.tmux.addPane({ id: '%9' });
      f.tmux.panes.delete(f.pane.id);
      await Promise.all([reader.notePaneGone(), reader.notePaneGone()]);
      await reader.notePaneGone();
      expect(paneGone).toHaveLength(1);
      expect(paneGone[0]).toBeInstanceOf(AgentError);
      expect(paneGone[0]?.message).toBe(
        "pane %5 of agent 'w1' is gone (killed or closed); the bridge stops",
      );
      expect(f.eventsOf('error').map((e) => e.data)).toEqual([
        {
          where: 'pane',
          paneGone: true,
          message: 'pane %5 is gone; 1 open request(s) kept',
        },
      ]);
    });

    it('says nothing while the pane is there', async () => {
      await setup();
      f.pane.dead = true; // dead, not gone
      await reader.notePaneGone();
      expect(paneGone).toEqual([]);
      expect(f.events).toEqual([]);
    });

    it('says nothing when the whole server is down', async () => {
      await setup();
      f.tmux.panes.clear();
      await reader.notePaneGone();
      expect(paneGone).toEqual([]);
      expect(f.events).toEqual([]);
    });

    it('says nothing once stopped, or without an owner to tell', async () => {
      await setup();
      f.tmux.addPane({ id: '%9' });
      f.tmux.panes.delete(f.pane.id);
      f.ctx.markStopped();
      await reader.notePaneGone();
      expect(paneGone).toEqual([]);
      reader.stop();
      f.cleanup();
      await setup({ onPaneGone: false });
      f.tmux.addPane({ id: '%9' });
      f.tmux.panes.delete(f.pane.id);
      await reader.notePaneGone();
      expect(f.events).toEqual([]);
    });
  });

  // The backstop was an interval checking each second whether a reading was
  // due: each idle agent woke its bridge every second for nothing (32 times
  // a second on a host of 32 agents). Strategy: fake timers; after a reading
  // the next timer must be the reading itself, due after the quiet backstop
  // for an idle pane and after the short one while output is recent.
  describe('the backstop', () => {
    // Until `done`, letting the reading's real I/O run between turns (the
    // timers are fake, setImmediate and performance.now are not): a fixed
    // number of turns was too few on a loaded machine.
    const settleUntil = async (done: () => boolean) => {
      const end = performance.now() + 10_000;
      while (!done() && performance.now() < end) {
        await vi.advanceTimersByTimeAsync(0);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const fakeTimers = () =>
      vi.useFakeTimers({
        toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval'],
      });

    /** Start, then time the next reading after the first one. */
    async function nextReadingAfter(
      options: { screen?: string; output?: boolean },
      state: AgentStateName,
    ): Promise<number> {
      await setup(options.screen ? { screen: options.screen } : {});
      fakeTimers();
      const captures = vi.spyOn(f.tmux, 'capturePane');
      if (options.output) activity.onOutput(Date.now());
      reader.start();
      await settleUntil(() => f.state().state === state);
      const reads = captures.mock.calls.length;
      const at = Date.now();
      // Timer by timer until the next reading: the first reading may still
      // be ending (its state's lazy save is a timer too, and the backstop is
      // armed only when it has ended), so each timer's work is let finish
      // before the next; a few timers that read nothing are allowed.
      for (let i = 0; i < 5 && captures.mock.calls.length === reads; i++) {
        await settleUntil(() => vi.getTimerCount() > 0);
        await vi.advanceTimersToNextTimerAsync();
        await settleUntil(
          () => captures.mock.calls.length > reads || vi.getTimerCount() > 0,
        );
      }
      const after = Date.now() - at;
      await settleUntil(() => captures.mock.settledResults.length > reads);
      expect(captures).toHaveBeenCalledTimes(reads + 1);
      return after;
    }

    it('reads an idle pane again after the quiet backstop, waking for nothing before', async () => {
      expect(await nextReadingAfter({}, 'idle')).toBe(STATE_QUIET_BACKSTOP_MS);
    });

    it('reads again after the short backstop while the reading goes by recent output', async () => {
      expect(
        await nextReadingAfter(
          { screen: 'compiling…', output: true },
          'working',
        ),
      ).toBe(STATE_BACKSTOP_MS);
    });
  });

  describe('readings on their own', () => {
    it('start reads at once; output is read soon after', async () => {
      await setup();
      reader.start();
      await waitFor(() => f.state().state === 'idle');
      f.pane.screen = WORKING;
      reader.afterOutput(true);
      await waitFor(() => f.state().state === 'working');
    });

    it('setAgentState records a state and its detail', async () => {
      await setup();
      await f.ctx.serial(() =>
        reader.setAgentState('error', 'screen', { rule: 'error:api' }),
      );
      expect(f.state()).toMatchObject({
        state: 'error',
        stateSource: 'screen',
      });
      expect(stateChanges()).toEqual([
        {
          from: 'unknown',
          to: 'error',
          source: 'screen',
          pane: '%5',
          rule: 'error:api',
        },
      ]);
    });
  });
});
