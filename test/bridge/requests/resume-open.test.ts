import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  afterEach,
  beforeEach,
  describe,
  expect,
  it,
  vi,
  type MockInstance,
} from 'vitest';
import type { RequestSteps } from '../../../src/bridge/requests/request-steps.js';
import {
  corruptStateWarning,
  resumeRequests,
} from '../../../src/bridge/requests/resume-open.js';
import type { RebuildSummary } from '../../../src/state/rebuild.js';
import { freshAgentState } from '../../../src/state/store.js';
import type { RequestRecord, RequestStage } from '../../../src/state/types.js';
import {
  AGENT,
  createStageFixture,
  storedResponse,
  type StageFixture,
} from '../stage-fixture.js';

describe('corruptStateWarning', () => {
  const base = {
    type: 'corrupt' as const,
    state: freshAgentState(AGENT, 'generic'),
    movedTo: '/h/.macs/state/w1.json.corrupt-1',
    error: 'Unexpected end of JSON input',
  };

  it('names the file and what the rebuild carried on', () => {
    const rebuilt: RebuildSummary = {
      events: 40,
      resume: { routed: ['w1-a', 'w1-b'], answered: ['w1-c'] },
      reanswer: ['w1-c'],
      reread: ['w1-d'],
      finished: 5,
      logOffset: 512,
    };
    expect(corruptStateWarning({ ...base, rebuilt })).toEqual({
      message:
        'state file was unreadable (Unexpected end of JSON input); moved to /h/.macs/state/w1.json.corrupt-1 and rebuilt from the event log: 3 request(s) carried on, 1 answer(s) taken again from their backend, 1 request(s) read again from the pane log, reading from offset 512',
      data: {
        movedTo: '/h/.macs/state/w1.json.corrupt-1',
        error: 'Unexpected end of JSON input',
        rebuilt,
      },
    });
  });

  it('says why the rebuild failed, and that the state starts fresh', () => {
    expect(
      corruptStateWarning({
        ...base,
        rebuildError: 'EACCES: permission denied',
      }),
    ).toEqual({
      message:
        'state file was unreadable (Unexpected end of JSON input); moved to /h/.macs/state/w1.json.corrupt-1; the event log could not be read (EACCES: permission denied), starting fresh',
      data: {
        movedTo: '/h/.macs/state/w1.json.corrupt-1',
        error: 'Unexpected end of JSON input',
      },
    });
    expect(corruptStateWarning(base).message).toContain(
      'the event log could not be read (unknown error), starting fresh',
    );
  });
});

describe('resumeRequests', () => {
  let f: StageFixture;
  let steps: RequestSteps;
  let routed: string[];
  let delivered: string[];
  let keys: MockInstance<StageFixture['tmux']['sendKey']>;

  beforeEach(async () => {
    f = await createStageFixture({ session: 's-1' });
    steps = f.createSteps().steps;
    routed = [];
    delivered = [];
    keys = vi.spyOn(f.tmux, 'sendKey');
  });
  afterEach(() => f.cleanup());

  const resume = () =>
    f.ctx.serial(async () => {
      const toDeliver = await resumeRequests(f.ctx, {
        steps,
        route: (record) => {
          routed.push(record.id);
          return Promise.resolve();
        },
      });
      delivered.push(...toDeliver.map((record) => record.id));
    });

  const TEXT = 'Use the second option please';
  const answered = (stage: RequestStage, over: Partial<RequestRecord> = {}) =>
    f.addRecord({
      stage,
      answeredAt: '2025-03-01T12:00:30.000Z',
      response: storedResponse(TEXT),
      ...over,
    });

  it('routes detected and routed requests again, oldest first', async () => {
    const later = f.addRecord({
      stage: 'routed',
      detectedAt: '2025-03-01T12:05:00.000Z',
    });
    const earlier = f.addRecord({
      stage: 'detected',
      detectedAt: '2025-03-01T11:00:00.000Z',
    });
    await resume();
    expect(routed).toEqual([earlier.id, later.id]);
    expect(delivered).toEqual([]);
    expect(f.events).toEqual([]);
    expect(Object.keys(f.state().requests).sort()).toEqual(
      [earlier.id, later.id].sort(),
    );
  });

  it('delivers an answered request', async () => {
    const record = answered('answered');
    await resume();
    expect(delivered).toEqual([record.id]);
    expect(routed).toEqual([]);
    expect(keys).not.toHaveBeenCalled();
  });

  describe('pasted: the text is in the composer', () => {
    it('presses the submit key that was missing', async () => {
      const record = answered('pasted');
      await resume();
      expect(keys).toHaveBeenCalledTimes(1);
      expect(keys).toHaveBeenCalledWith('%5', 'Enter');
      expect(record.stage).toBe('delivered');
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        ['request.delivered', { method: 'submit-after-restart' }],
        ['request.archived', { stage: 'delivered' }],
      ]);
      expect(f.state().counters.delivered).toBe(1);
      expect(f.state().requests).toEqual({});
    });

    it('presses it when the composer still holds the text after the key was about to be pressed', async () => {
      f.pane.screen = `some output\n❯ ${TEXT}\n`;
      const record = answered('pasted', {
        submittingAt: '2025-03-01T12:00:31.000Z',
      });
      await resume();
      expect(keys).toHaveBeenCalledTimes(1);
      expect(f.eventsOf('request.delivered')[0]?.data).toEqual({
        method: 'submit-after-restart',
      });
      expect(record.stage).toBe('delivered');
    });

    it('presses nothing when the composer shows the key was pressed', async () => {
      f.pane.screen = `❯ ${TEXT}\n● Working on it\n❯ \n`;
      const record = answered('pasted', {
        submittingAt: '2025-03-01T12:00:31.000Z',
      });
      await resume();
      expect(keys).not.toHaveBeenCalled();
      expect(f.eventsOf('request.delivered')[0]?.data).toEqual({
        method: 'submitted-before-restart',
      });
      expect(record.stage).toBe('delivered');
      expect(f.state().requests).toEqual({});
    });

    it('reports a key that cannot be pressed, and keeps the request', async () => {
      keys.mockRejectedValueOnce(new Error('no server running'));
      const record = answered('pasted');
      await resume();
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        ['error', { where: 'resume', message: 'no server running' }],
      ]);
      expect(record.stage).toBe('pasted');
      expect(f.state().requests[record.id]).toBe(record);
    });
  });

  describe('delivering: the bridge died while typing', () => {
    it('submits text left in the composer', async () => {
      f.pane.screen = `❯ ${TEXT}`;
      const record = answered('delivering');
      await resume();
      expect(keys).toHaveBeenCalledTimes(1);
      expect(f.eventsOf('request.delivered')[0]?.data).toEqual({
        method: 'typed-before-restart',
      });
      expect(record.stage).toBe('delivered');
    });

    it('never types it again otherwise: unconfirmed', async () => {
      f.pane.screen = '❯ ';
      const record = answered('delivering');
      await resume();
      expect(keys).not.toHaveBeenCalled();
      expect(record.stage).toBe('unconfirmed');
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        [
          'delivery.unconfirmed',
          {
            reason:
              'the bridge stopped while typing this answer; not re-sent (delivery is at most once)',
          },
        ],
        ['request.archived', { stage: 'unconfirmed' }],
      ]);
      expect(f.state().requests).toEqual({});
    });
  });

  it.each([
    'answered-empty',
    'delivered',
    'confirmed',
    'unconfirmed',
    'expired',
    'dismissed',
  ] as const)('archives a request that had finished (%s)', async (stage) => {
    const record = answered(stage);
    await resume();
    expect(f.events.map((e) => [e.type, e.data])).toEqual([
      ['request.archived', { stage }],
    ]);
    expect(f.state().requests).toEqual({});
    expect(f.state().recent[0]).toMatchObject({ id: record.id, stage });
    expect(routed).toEqual([]);
    expect(delivered).toEqual([]);
    expect(keys).not.toHaveBeenCalled();
  });

  describe('a request asked in another session, pane or program', () => {
    it.each([
      { stage: 'routed', over: { session: 's-0' } },
      { stage: 'answered', over: { pane: '%9' } },
      { stage: 'detected', over: { panePid: 17 } },
    ] as const)(
      'is ended, never answered ($stage)',
      async ({ stage, over }) => {
        const record = answered(stage, over);
        await resume();
        expect(record.stage).toBe('expired');
        expect(f.types()).toEqual(['request.expired', 'request.archived']);
        expect(routed).toEqual([]);
        expect(delivered).toEqual([]);
      },
    );

    it('whose typing had begun is unconfirmed, its key never pressed', async () => {
      f.pane.screen = `❯ ${TEXT}`;
      const record = answered('pasted', { session: 's-0' });
      await resume();
      expect(keys).not.toHaveBeenCalled();
      expect(record.stage).toBe('unconfirmed');
      expect(f.types()).toEqual(['delivery.unconfirmed', 'request.archived']);
    });

    it('a finished one is archived as it is', async () => {
      const record = answered('delivered', { session: 's-0' });
      await resume();
      expect(record.stage).toBe('delivered');
      expect(f.types()).toEqual(['request.archived']);
    });
  });

  it.each(['delivering', 'pasted'] as const)(
    "never presses a dialog's keys again (%s)",
    async (stage) => {
      f.pane.screen = `❯ ${TEXT}`;
      const record = answered(stage, { type: 'approval', origin: 'screen' });
      await resume();
      expect(keys).not.toHaveBeenCalled();
      expect(record.stage).toBe('unconfirmed');
      expect(f.eventsOf('delivery.unconfirmed')[0]?.data).toEqual({
        reason:
          'the bridge stopped while applying this decision to the dialog; its keys are not pressed again',
      });
      expect(f.state().requests).toEqual({});
    },
  );

  it('cleans up the inbox and outbox files of the recent requests', async () => {
    const done = f.addRecord({ stage: 'delivered' });
    await steps.finish(done);
    const files = [
      path.join(f.paths.inbox, `${done.id}.json`),
      path.join(f.paths.outbox, `${done.id}.txt`),
    ];
    for (const file of files) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'left over');
    }
    await resume();
    for (const file of files) expect(existsSync(file)).toBe(false);
  });
});
