import { afterEach, describe, expect, it } from 'vitest';
import type {
  Deliverer,
  DeliveryRequest,
  DeliveryResult,
} from '../../../src/typist/typist.js';
import {
  phasesOf,
  scriptedTyping,
  type PhaseScript,
} from '../../helpers/scripted-typing.js';
import {
  createDelivery,
  type Delivery,
  type DeliveryHooks,
} from '../../../src/bridge/answers/delivery.js';
import type { AgentStateName } from '../../../src/config/states.js';
import type { RequestRecord } from '../../../src/state/types.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  createStageFixture,
  storedResponse,
  type StageFixture,
  type StageFixtureOptions,
} from '../stage-fixture.js';

type Script = (request: DeliveryRequest, seen: string[]) => PhaseScript;

/**
 * A Deliverer whose typings play a script, phase by phase; it keeps every
 * request it was given, and `seen` the phases called (`type` is the text
 * typed).
 */
class FakeDeliverer implements Deliverer {
  readonly requests: DeliveryRequest[] = [];
  readonly seen: string[] = [];
  readonly typings: { ended: boolean }[] = [];
  script: Script = () => phasesOf({ type: 'aborted' });
  begin(request: DeliveryRequest) {
    this.requests.push(request);
    const typing = scriptedTyping(this.script(request, this.seen), this.seen);
    this.typings.push(typing);
    return Promise.resolve(typing);
  }
  deliver(): Promise<DeliveryResult> {
    return Promise.reject(new Error('the bridge calls the phases'));
  }
}

/** What the agent's hooks would do, recorded. */
function fakeHooks() {
  const calls = {
    decided: [] as string[],
    markedByHook: [] as string[],
    claimed: [] as string[],
    submitted: 0,
  };
  const control = {
    claim: (_record: RequestRecord) => Promise.resolve(true),
    deliveredByHook: false,
  };
  const signals = new Map<string, AbortController>();
  const hooks: DeliveryHooks = {
    decideApproval: (record) => {
      calls.decided.push(record.id);
      return Promise.resolve();
    },
    deliveredByHook: () => Promise.resolve(control.deliveredByHook),
    markDeliveredByHook: (record) => {
      calls.markedByHook.push(record.id);
      return Promise.resolve();
    },
    claimForTyping: (record) => {
      calls.claimed.push(record.id);
      return control.claim(record);
    },
    signalFor: (id) => {
      const controller = signals.get(id) ?? new AbortController();
      signals.set(id, controller);
      return controller.signal;
    },
    noteSubmitted: () => void (calls.submitted += 1),
  };
  return { hooks, calls, control, signals };
}

const delivered = (
  over: Partial<Extract<DeliveryResult, { type: 'delivered' }>> = {},
): DeliveryResult => ({
  type: 'delivered',
  method: 'paste',
  chars: 12,
  waitedMs: 5,
  submits: 1,
  ...over,
});

describe('delivery', () => {
  let f: StageFixture;
  let deliverer: FakeDeliverer;
  let delivery: Delivery;
  let fake: ReturnType<typeof fakeHooks>;
  let stillAsked: (record: RequestRecord) => Promise<boolean>;
  let stateForDelivery: AgentStateName;
  let pausedIds: Set<string>;
  let paneGoneNoted: number;
  let applied: { id: string; signal: AbortSignal }[];

  afterEach(async () => {
    f.ctx.markStopped();
    await delivery.settle();
    f.cleanup();
  });

  async function setup(
    options: StageFixtureOptions & { withDialog?: boolean } = {},
  ): Promise<void> {
    f = await createStageFixture(options);
    const { steps } = f.createSteps();
    deliverer = new FakeDeliverer();
    fake = fakeHooks();
    stillAsked = () => Promise.resolve(true);
    stateForDelivery = 'idle';
    pausedIds = new Set();
    paneGoneNoted = 0;
    applied = [];
    delivery = createDelivery(f.ctx, {
      steps,
      deliverer,
      hooks: fake.hooks,
      ...(options.withDialog
        ? {
            applyDialog: (record: RequestRecord, signal: AbortSignal) => {
              applied.push({ id: record.id, signal });
              return Promise.resolve();
            },
          }
        : {}),
      deliveryState: () => Promise.resolve(stateForDelivery),
      stillAsked: (record) => stillAsked(record),
      isPaused: (id) => pausedIds.has(id),
      notePaneGone: () => {
        paneGoneNoted += 1;
        return Promise.resolve();
      },
    });
  }

  const answeredRecord = (over: Partial<RequestRecord> = {}) =>
    f.addRecord({
      stage: 'answered',
      answeredAt: '2025-03-01T12:00:30.000Z',
      response: storedResponse('Use Postgres'),
      ...over,
    });

  async function deliverNow(record: RequestRecord): Promise<void> {
    delivery.schedule(record);
    await delivery.settle();
  }

  it('types the answer, saving each stage before the next, then confirms it', async () => {
    await setup();
    const record = answeredRecord();
    const savedStages: unknown[] = [];
    const savedStage = async () => {
      const saved = (await f.saved())?.requests[record.id];
      savedStages.push([saved?.stage, saved?.submittingAt !== undefined]);
    };
    const through = phasesOf(
      delivered({ confirmed: true, confirmation: 'working' }),
    );
    // The stage saved as each phase begins: the bridge records the result
    // of one before it calls the next.
    deliverer.script = () => ({
      ...through,
      type: () => savedStage().then(() => through.type!()),
      awaitSubmit: () => savedStage().then(() => ({ phase: 'due' }) as const),
      submit: () => savedStage().then(() => through.submit!()),
    });
    await deliverNow(record);
    expect(deliverer.seen).toContain('type');

    expect(savedStages).toEqual([
      ['delivering', false],
      ['pasted', false],
      ['pasted', true],
    ]);
    expect(fake.calls.claimed).toEqual([record.id]);
    expect(fake.calls.submitted).toBe(1);
    expect(f.types(record.id)).toEqual([
      'request.delivering',
      'request.delivered',
      'request.archived',
      'request.confirmed',
    ]);
    expect(f.eventsOf('request.delivered')[0]?.data).toEqual({
      method: 'paste',
      chars: 12,
      waitedMs: 5,
    });
    expect(f.eventsOf('request.confirmed')[0]?.data).toEqual({
      via: 'working',
      submits: 1,
    });
    expect(record.stage).toBe('confirmed');
    expect(f.state().counters.delivered).toBe(1);
    expect(f.state().requests).toEqual({});
    expect(f.state().recent[0]).toMatchObject({
      id: record.id,
      stage: 'confirmed',
    });
    expect(f.archived(record)).toMatchObject({
      stage: 'confirmed',
      deliveringAt: expect.any(String) as unknown,
      pastedAt: expect.any(String) as unknown,
      submittingAt: expect.any(String) as unknown,
      deliveredAt: expect.any(String) as unknown,
      confirmedAt: expect.any(String) as unknown,
    });
  });

  it("gives the deliverer the pane, the text, the preset's rules and the config's limits", async () => {
    await setup({ config: { submitRetries: 4, deliverTimeoutSec: 7 } });
    const record = answeredRecord();
    await deliverNow(record);
    const [request] = deliverer.requests;
    expect(request).toMatchObject({
      pane: '%5',
      text: 'Use Postgres',
      rules: f.ctx.profile.rules,
      classify: f.ctx.profile.classify,
      deliverTimeoutMs: 7000,
      confirm: { retries: 4, preferConfirmedMs: 0 },
    });
    // The confirmation a hook gives is the record's stage.
    expect(request?.confirm?.confirmed?.()).toBe(false);
    record.stage = 'confirmed';
    expect(request?.confirm?.confirmed?.()).toBe(true);
  });

  it('waits for the hook to confirm when the hooks work', async () => {
    await setup();
    f.state().hooks = { status: 'active', since: '2025-03-01T12:00:00.000Z' };
    await deliverNow(answeredRecord());
    expect(deliverer.requests[0]?.confirm?.preferConfirmedMs).toBe(3000);
  });

  it('reads the state, the pause and the waiting through the stages', async () => {
    await setup();
    const record = answeredRecord();
    await deliverNow(record);
    const [request] = deliverer.requests;
    if (!request) throw new Error('not delivered');
    stateForDelivery = 'working';
    expect(await request.readState()).toBe('working');
    expect(request.isPaused?.()).toBe(false);
    pausedIds.add(record.id);
    expect(request.isPaused?.()).toBe(true);
    pausedIds.clear();
    f.state().paused = true;
    expect(request.isPaused?.()).toBe(true);
    // A long wait is a result of the wait phase; the wait goes on.
    const waits: Awaited<
      ReturnType<NonNullable<PhaseScript['waitTypeable']>>
    >[] = [
      { phase: 'busy', state: 'working', waitedMs: 700_000 },
      { phase: 'aborted' },
    ];
    deliverer.script = () => ({
      waitTypeable: () =>
        Promise.resolve(waits.shift() ?? { phase: 'aborted' }),
    });
    await deliverNow(record);
    expect(f.eventsOf('delivery.timeout')[0]).toMatchObject({
      requestId: record.id,
      data: { state: 'working', waitedMs: 700_000 },
    });
  });

  it('records a delivery without a sign the agent took it unconfirmed', async () => {
    await setup();
    const record = answeredRecord();
    deliverer.script = () =>
      phasesOf(delivered({ confirmed: false, submits: 3 }));
    await deliverNow(record);
    expect(record.stage).toBe('unconfirmed');
    expect(f.types(record.id)).toEqual([
      'request.delivering',
      'request.delivered',
      'request.archived',
      'delivery.unconfirmed',
    ]);
    expect(f.eventsOf('delivery.unconfirmed')[0]?.data).toEqual({
      submits: 3,
      reason:
        'no sign that the agent took the text after 3 press(es) of Enter; not typed again',
    });
    expect(f.state().recent[0]?.stage).toBe('unconfirmed');
    expect(f.archived(record)).toMatchObject({ stage: 'unconfirmed' });
  });

  it('a delivery that ended before the submit key is delivered and unconfirmed', async () => {
    await setup();
    const record = answeredRecord();
    // Nothing to watch: the pane's program ended before the submit key.
    deliverer.script = () => phasesOf(delivered());
    await deliverNow(record);
    expect(f.types(record.id)).toEqual([
      'request.delivering',
      'request.delivered',
      'delivery.unconfirmed',
      'request.archived',
    ]);
    expect(f.eventsOf('delivery.unconfirmed')[0]?.data?.reason).toBe(
      'the program in pane %5 ended before the submit key; not typed again',
    );
    expect(f.state().counters.delivered).toBe(1);
    expect(f.archived(record)).toMatchObject({ stage: 'unconfirmed' });
  });

  it('a confirmation the hook gave first is not given twice', async () => {
    await setup();
    const record = answeredRecord();
    deliverer.script = () => ({
      ...phasesOf(delivered({ confirmed: true, confirmation: 'hook' })),
      confirm: () => {
        record.stage = 'confirmed'; // the UserPromptSubmit hook
        return Promise.resolve({
          phase: 'confirmed',
          confirmation: 'hook',
          submits: 1,
        });
      },
    });
    await deliverNow(record);
    expect(f.eventsOf('request.confirmed')).toEqual([]);
    expect(record.stage).toBe('confirmed');
  });

  it('archives an answer that is empty once sanitized', async () => {
    await setup();
    const record = answeredRecord();
    deliverer.script = () => phasesOf({ type: 'empty' });
    await deliverNow(record);
    expect(record.stage).toBe('answered-empty');
    expect(f.types(record.id)).toEqual([
      'request.answered-empty',
      'request.archived',
    ]);
    expect(f.eventsOf('request.answered-empty')[0]?.data).toEqual({
      reason: 'nothing left after sanitizing',
    });
    expect(f.state().requests).toEqual({});
  });

  describe('the pane gone', () => {
    it('before typing: the answer is kept for later', async () => {
      await setup();
      const record = answeredRecord();
      deliverer.script = () => phasesOf({ type: 'pane-gone', state: 'dead' });
      await deliverNow(record);
      expect(record.stage).toBe('answered');
      expect(f.state().requests[record.id]).toBe(record);
      expect(f.events.map((e) => [e.type, e.data?.stage])).toEqual([
        ['error', 'answered'],
      ]);
      expect(f.eventsOf('error')[0]?.data).toMatchObject({
        where: 'deliver',
        paneGone: true,
      });
      expect(paneGoneNoted).toBe(1);
      // Delivered when the pane runs again.
      deliverer.script = () => phasesOf(delivered({ confirmed: true }));
      await deliverNow(record);
      expect(deliverer.requests).toHaveLength(2);
      expect(record.stage).toBe('confirmed');
    });

    it('while typing: unconfirmed and archived, never typed again', async () => {
      await setup();
      const record = answeredRecord();
      // Typed, then the pane went away before the submit key.
      deliverer.script = () => ({
        awaitSubmit: () => Promise.resolve({ phase: 'gone' }),
      });
      await deliverNow(record);
      expect(record.stage).toBe('unconfirmed');
      expect(f.types(record.id)).toEqual([
        'request.delivering',
        'error',
        'delivery.unconfirmed',
        'request.archived',
      ]);
      expect(f.eventsOf('error')[0]?.data).toMatchObject({
        paneGone: true,
        stage: 'unconfirmed',
      });
      expect(f.state().requests).toEqual({});
      expect(paneGoneNoted).toBe(1);
    });
  });

  describe('nothing typed', () => {
    it("the Stop hook claimed it first: recorded as the hook's delivery", async () => {
      await setup();
      const record = answeredRecord();
      fake.control.claim = () => Promise.resolve(false);
      const seen: string[] = [];
      deliverer.script = () => phasesOf(delivered());
      await deliverNow(record);
      seen.push(...deliverer.seen.filter((phase) => phase === 'type'));
      expect(seen).toEqual([]);
      expect(fake.calls.markedByHook).toEqual([record.id]);
      expect(f.types(record.id)).toEqual([]);
      expect(record.stage).toBe('answered');
    });

    it('an abort for another reason leaves the request as it is', async () => {
      await setup();
      const record = answeredRecord();
      deliverer.script = () => phasesOf({ type: 'aborted' });
      await deliverNow(record);
      expect(fake.calls.markedByHook).toEqual([]);
      expect(record.stage).toBe('answered');
      expect(f.events).toEqual([]);
    });

    it('no longer asked (another program, another agent): no claim, nothing typed', async () => {
      await setup();
      const record = answeredRecord();
      stillAsked = () => Promise.resolve(false);
      const seen: string[] = [];
      deliverer.script = () => phasesOf(delivered());
      await deliverNow(record);
      seen.push(...deliverer.seen.filter((phase) => phase === 'type'));
      expect(seen).toEqual([]);
      expect(fake.calls.claimed).toEqual([]);
      expect(fake.calls.markedByHook).toEqual([]);
      expect(f.events).toEqual([]);
    });

    it('ended while the claim was made: nothing typed', async () => {
      await setup();
      const record = answeredRecord();
      fake.control.claim = async (r) => {
        await f.ctx.serial(() =>
          f
            .createSteps()
            .steps.closeUnanswered(r, 'dismissed', 'not needed', 'person'),
        );
        return true;
      };
      const seen: string[] = [];
      deliverer.script = () => phasesOf(delivered());
      await deliverNow(record);
      seen.push(...deliverer.seen.filter((phase) => phase === 'type'));
      expect(seen).toEqual([]);
      expect(f.types(record.id)).toEqual([
        'request.dismissed',
        'request.archived',
      ]);
    });

    it("the Stop hook handed it over already: the hook's delivery, no deliverer", async () => {
      await setup();
      const record = answeredRecord();
      fake.control.deliveredByHook = true;
      await deliverNow(record);
      expect(deliverer.requests).toEqual([]);
      expect(fake.calls.markedByHook).toEqual([record.id]);
    });
  });

  describe('approvals never reach the deliverer', () => {
    it("a hook's approval is its decision file", async () => {
      await setup();
      const record = answeredRecord({ type: 'approval', origin: 'hook' });
      await deliverNow(record);
      expect(fake.calls.decided).toEqual([record.id]);
      expect(deliverer.requests).toEqual([]);
    });

    it("a screen's approval is applied to the dialog", async () => {
      await setup({ withDialog: true });
      const record = answeredRecord({ type: 'approval', origin: 'screen' });
      await deliverNow(record);
      expect(applied.map((a) => a.id)).toEqual([record.id]);
      expect(applied[0]?.signal.aborted).toBe(false);
      f.ctx.markStopped();
      expect(applied[0]?.signal.aborted).toBe(true);
      expect(deliverer.requests).toEqual([]);
    });

    it("a screen's approval without a dialog in the preset expires, nothing pressed", async () => {
      await setup();
      const record = answeredRecord({ type: 'approval', origin: 'screen' });
      await deliverNow(record);
      expect(deliverer.requests).toEqual([]);
      expect(record.stage).toBe('expired');
      expect(f.eventsOf('request.expired')[0]?.data).toEqual({
        reason:
          'preset generic describes no dialog to apply this decision to; nothing was pressed',
        by: 'bridge',
      });
      expect(f.state().requests).toEqual({});
    });
  });

  describe('schedule and callOff', () => {
    /** A deliverer that waits until its signal aborts or it is let go. */
    function holdingScript() {
      const held: { release: () => void } = { release: () => undefined };
      deliverer.script = (request) => ({
        waitTypeable: () =>
          new Promise((resolve) => {
            held.release = () => resolve({ phase: 'aborted' });
            request.signal?.addEventListener('abort', () =>
              resolve({ phase: 'aborted' }),
            );
          }),
      });
      return held;
    }

    it('delivers a request once at a time', async () => {
      await setup();
      const record = answeredRecord();
      const held = holdingScript();
      delivery.schedule(record);
      delivery.schedule(record);
      await waitFor(() => deliverer.requests.length === 1);
      delivery.schedule(record);
      held.release();
      await delivery.settle();
      expect(deliverer.requests).toHaveLength(1);
      // Once that one ended, it may be scheduled again.
      deliverer.script = () => phasesOf({ type: 'aborted' });
      await deliverNow(record);
      expect(deliverer.requests).toHaveLength(2);
    });

    it('delivers two requests side by side', async () => {
      await setup();
      holdingScript();
      delivery.schedule(answeredRecord());
      delivery.schedule(answeredRecord());
      await waitFor(() => deliverer.requests.length === 2);
    });

    it('schedules nothing once stopped', async () => {
      await setup();
      f.ctx.markStopped();
      await deliverNow(answeredRecord());
      expect(deliverer.requests).toEqual([]);
    });

    it("the context's callOff aborts the delivery under way for that request only", async () => {
      await setup();
      const a = answeredRecord();
      const b = answeredRecord();
      holdingScript();
      delivery.schedule(a);
      delivery.schedule(b);
      await waitFor(() => deliverer.requests.length === 2);
      const [forA, forB] = deliverer.requests;
      f.ctx.deliveries.callOff('w1-unknown');
      f.ctx.deliveries.callOff(a.id);
      expect(forA?.signal?.aborted).toBe(true);
      expect(forB?.signal?.aborted).toBe(false);
      f.ctx.deliveries.callOff(b.id);
      await delivery.settle();
    });

    it("the hooks' signal and stopping abort it too", async () => {
      await setup();
      const a = answeredRecord();
      const b = answeredRecord();
      holdingScript();
      delivery.schedule(a);
      delivery.schedule(b);
      await waitFor(() => deliverer.requests.length === 2);
      fake.signals.get(a.id)?.abort();
      expect(deliverer.requests[0]?.signal?.aborted).toBe(true);
      expect(deliverer.requests[1]?.signal?.aborted).toBe(false);
      f.ctx.markStopped();
      expect(deliverer.requests[1]?.signal?.aborted).toBe(true);
      await delivery.settle();
    });

    it('a delivery that throws is reported, and settle still ends', async () => {
      await setup();
      const record = answeredRecord();
      deliverer.script = () => ({
        waitTypeable: () => Promise.reject(new Error('tmux went away')),
      });
      await deliverNow(record);
      expect(f.events.map((e) => [e.type, e.requestId, e.data])).toEqual([
        ['error', record.id, { where: 'deliver', message: 'tmux went away' }],
      ]);
    });
  });
});
