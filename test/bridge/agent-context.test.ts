import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentContext } from '../../src/bridge/agent-context.js';
import { ConfigSchema } from '../../src/config/schema.js';
import type { EventSink } from '../../src/events/log.js';
import type { EventInput } from '../../src/events/types.js';
import { resolveHomePaths } from '../../src/home/paths.js';
import { createSilentLogger } from '../../src/log/logger.js';
import { freshAgentState } from '../../src/state/store.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';
import {
  AGENT,
  createStageFixture,
  testProfile,
  type StageFixture,
} from './stage-fixture.js';

describe('agent context', () => {
  let f: StageFixture | undefined;

  afterEach(() => {
    vi.useRealTimers();
    f?.cleanup();
    f = undefined;
  });

  it('has no state before setState: current() throws, hasState() is false', async () => {
    f = await createStageFixture({ withState: false });
    const { ctx } = f;
    expect(ctx.hasState()).toBe(false);
    expect(() => ctx.current()).toThrow(
      `supervisor for ${AGENT} is not started`,
    );
    const state = freshAgentState(AGENT, 'generic');
    ctx.setState(state);
    expect(ctx.hasState()).toBe(true);
    expect(ctx.current()).toBe(state);
  });

  it('saveNow writes the state file at once', async () => {
    f = await createStageFixture();
    expect(await f.saved()).toBeUndefined();
    f.state().logOffset = 42;
    f.state().counters.malformed = 2;
    await f.ctx.saveNow();
    expect(await f.saved()).toMatchObject({
      agent: AGENT,
      logOffset: 42,
      counters: { malformed: 2 },
    });
  });

  it('saveLater coalesces: one write within the lazy delay, with the latest state', async () => {
    f = await createStageFixture();
    const { ctx } = f;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    ctx.current().logOffset = 1;
    ctx.saveLater();
    ctx.current().logOffset = 2;
    ctx.saveLater();
    ctx.current().logOffset = 3;
    ctx.saveLater();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(199);
    await ctx.serial(() => Promise.resolve());
    expect(await f.saved()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(vi.getTimerCount()).toBe(0);
    // The write is queued on `serial`: done once a later task runs.
    await ctx.serial(() => Promise.resolve());
    expect((await f.saved())?.logOffset).toBe(3);
    // A later change gets a timer of its own.
    ctx.saveLater();
    expect(vi.getTimerCount()).toBe(1);
  });

  it('saveNow takes the place of a pending lazy save', async () => {
    f = await createStageFixture();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    f.ctx.saveLater();
    expect(vi.getTimerCount()).toBe(1);
    await f.ctx.saveNow();
    expect(vi.getTimerCount()).toBe(0);
    expect(await f.saved()).toBeDefined();
  });

  it('markStopped drops a lazy save already pending (no file written after the end)', async () => {
    f = await createStageFixture();
    const { ctx } = f;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    ctx.saveLater();
    expect(vi.getTimerCount()).toBe(1);
    ctx.markStopped();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    await ctx.serial(() => Promise.resolve());
    expect(await f.saved()).toBeUndefined();
  });

  it('markStopped aborts the signal and stops lazy saves', async () => {
    f = await createStageFixture();
    const { ctx } = f;
    expect(ctx.stopped).toBe(false);
    expect(ctx.signal.aborted).toBe(false);
    ctx.markStopped();
    expect(ctx.stopped).toBe(true);
    expect(ctx.signal.aborted).toBe(true);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    ctx.saveLater();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    await ctx.serial(() => Promise.resolve());
    expect(await f.saved()).toBeUndefined();
  });

  it('incarnation: the agent, the pane, the pid of its program once known, and the session', async () => {
    f = await createStageFixture({ session: 's-9' });
    const { ctx } = f;
    expect(ctx.incarnation()).toEqual({
      agent: 'w1',
      pane: '%5',
      panePid: 4242,
      session: 's-9',
    });
    ctx.panePid = 5000;
    expect(ctx.incarnation()).toEqual({
      agent: 'w1',
      pane: '%5',
      panePid: 5000,
      session: 's-9',
    });
    ctx.panePid = undefined;
    expect(ctx.incarnation()).toEqual({
      agent: 'w1',
      pane: '%5',
      session: 's-9',
    });
  });

  it('incarnation has no session outside `macs start`', async () => {
    f = await createStageFixture();
    expect(f.ctx.incarnation()).toEqual({
      agent: 'w1',
      pane: '%5',
      panePid: 4242,
    });
    expect(f.ctx.session).toBeUndefined();
  });

  it('emit records the event under the agent', async () => {
    f = await createStageFixture();
    await f.ctx.emit({
      type: 'warning',
      requestId: 'w1-r',
      data: { message: 'hi' },
    });
    expect(f.events).toEqual([
      expect.objectContaining({
        agent: AGENT,
        type: 'warning',
        requestId: 'w1-r',
        data: { message: 'hi' },
      }),
    ]);
  });

  it('emit never throws when the event cannot be written', async () => {
    const tried: EventInput[] = [];
    const failing: EventSink = {
      emit: (input) => {
        tried.push(input);
        return Promise.reject(new Error('disk full'));
      },
    };
    const ctx = createAgentContext({
      agent: AGENT,
      pane: '%1',
      profile: testProfile(),
      paths: resolveHomePaths('/nonexistent-macs-home'),
      config: ConfigSchema.parse({}),
      tmux: new FakeTmuxClient(),
      events: failing,
      log: createSilentLogger(),
    });
    await expect(ctx.emit({ type: 'warning' })).resolves.toBeUndefined();
    expect(tried).toEqual([{ agent: AGENT, type: 'warning' }]);
  });

  it('serial runs one task at a time, in order', async () => {
    f = await createStageFixture();
    const { ctx } = f;
    const order: string[] = [];
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const first = ctx.serial(async () => {
      order.push('first:start');
      started();
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first:end');
    });
    const second = ctx.serial(() => {
      order.push('second');
      return Promise.resolve();
    });
    await firstStarted;
    // Every queued microtask has run by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first:start']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first:start', 'first:end', 'second']);
  });

  it('a failed task does not stop the queue', async () => {
    f = await createStageFixture();
    const { ctx } = f;
    await expect(
      ctx.serial(() => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    await expect(ctx.serial(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
