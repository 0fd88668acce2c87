import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createRequests,
  overLimit,
} from '../../../src/bridge/requests/block-request.js';
import type {
  BackendAnswer,
  BackendRequest,
  ControllerBackend,
  SubmitResult,
} from '../../../src/backends/types.js';
import { hashBody } from '../../../src/protocol/ids.js';
import { requestIdsDir } from '../../../src/state/request-ids.js';
import type { RequestRecord } from '../../../src/state/types.js';
import {
  AGENT,
  createStageFixture,
  type StageFixture,
  type StageFixtureOptions,
} from '../stage-fixture.js';

/** A backend that records what it is handed. */
function fakeBackend() {
  const submitted: BackendRequest[] = [];
  const behaviour: { result?: SubmitResult; error?: Error } = {};
  const backend: ControllerBackend = {
    name: 'file',
    submit(request) {
      submitted.push(request);
      return behaviour.error
        ? Promise.reject(behaviour.error)
        : Promise.resolve(behaviour.result);
    },
    rescan: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };
  return { backend, submitted, behaviour };
}

describe('overLimit', () => {
  const limits = {
    maxPendingRequests: 2,
    maxRequestsPerMinute: 3,
    maxPendingBytes: 10,
  };
  const open = (...bodies: string[]) =>
    bodies.map((body) => ({ body }) as RequestRecord);

  it.each([
    { name: 'under every limit', open: open('ab'), recent: 2, body: 'cd' },
    {
      name: 'bytes exactly at the limit',
      open: open('12345'),
      recent: 0,
      body: '67890',
    },
  ])('none: $name', ({ open, recent, body }) => {
    expect(overLimit(limits, open, recent, body)).toBeUndefined();
  });

  it.each([
    {
      name: 'open requests at the limit',
      open: open('a', 'b'),
      recent: 0,
      body: 'c',
      trip: { reason: 'pending-requests', count: 3, limit: 2 },
    },
    {
      name: 'requests in the last minute at the limit',
      open: open('a'),
      recent: 3,
      body: 'c',
      trip: { reason: 'requests-per-minute', count: 4, limit: 3 },
    },
    {
      name: 'open bodies and this one over the bytes',
      open: open('123456'),
      recent: 0,
      body: '78901',
      trip: { reason: 'pending-bytes', count: 11, limit: 10 },
    },
    {
      // Bytes as UTF-8 (docs/config.md): six characters, twelve bytes.
      name: 'bytes, not characters',
      open: open(''),
      recent: 0,
      body: 'éééééé',
      trip: { reason: 'pending-bytes', count: 12, limit: 10 },
    },
    {
      name: 'the open requests first of all',
      open: open('123456789', '123456789'),
      recent: 9,
      body: '1',
      trip: { reason: 'pending-requests', count: 3, limit: 2 },
    },
  ])('$name', ({ open, recent, body, trip }) => {
    expect(overLimit(limits, open, recent, body)).toEqual(trip);
  });
});

describe('requests: from a detected block to a routed request', () => {
  let f: StageFixture;

  afterEach(() => {
    vi.useRealTimers();
    f.cleanup();
  });

  async function setup(options: StageFixtureOptions = {}) {
    f = await createStageFixture({ session: 's-1', ...options });
    const { steps } = f.createSteps();
    const fake = fakeBackend();
    const answered: { answer: BackendAnswer; stage?: string }[] = [];
    const requests = createRequests(f.ctx, {
      steps,
      backend: fake.backend,
    });
    // Every stage runs under `serial`, as intake and agent-state call them;
    // an answer given at once is handed on as the supervisor does: to the
    // answers room, whose queue takes it after this task.
    const onBlock = async (
      attributes: Record<string, string>,
      body: string,
      concealed = false,
    ) => {
      const taken = await f.ctx.serial(() =>
        requests.onBlock({ attributes: { ...attributes }, body, concealed }),
      );
      const answer = taken.answered;
      if (answer)
        void f.ctx.serial(() => {
          const stage = f.state().requests[answer.id]?.stage;
          answered.push({ answer, ...(stage ? { stage } : {}) });
          return Promise.resolve();
        });
      return taken.save;
    };
    return { requests, onBlock, answered, ...fake };
  }

  it('records a new request with who asked, saves it, then routes it', async () => {
    const { onBlock, submitted } = await setup();
    const body = 'Which database?\nPostgres or SQLite';
    expect(
      await onBlock({ id: 'q1', priority: 'high', type: 'question' }, body),
    ).toBe(true);

    const record = f.state().requests['w1-q1'];
    expect(record).toMatchObject({
      id: 'w1-q1',
      agent: AGENT,
      workerId: 'q1',
      type: 'question',
      priority: 'high',
      attributes: { id: 'q1', priority: 'high', type: 'question' },
      bodyHash: hashBody(body),
      body,
      pane: '%5',
      panePid: 4242,
      session: 's-1',
      stage: 'routed',
      backend: 'file',
    });
    expect(record).not.toHaveProperty('concealed');
    expect(record?.routedAt).toBeDefined();
    expect(f.state().counters.detected).toBe(1);
    expect(Object.keys(f.state().dedup.ids)).toEqual(['q1']);
    // Saved at once as detected; `routed` is saved lazily (routing is redone).
    expect((await f.saved())?.requests['w1-q1']?.stage).toBe('detected');
    // The id is claimed for this agent across the home.
    expect(
      readFileSync(path.join(requestIdsDir(f.paths), 'w1-q1'), 'utf8'),
    ).toBe(`${AGENT}\n`);

    expect(f.events.map((e) => [e.type, e.requestId])).toEqual([
      ['request.detected', 'w1-q1'],
      ['request.routed', 'w1-q1'],
    ]);
    expect(f.eventsOf('request.detected')[0]?.data).toEqual({
      type: 'question',
      priority: 'high',
      attributes: { id: 'q1', priority: 'high', type: 'question' },
      chars: body.length,
      hash: hashBody(body).slice(0, 12),
      bodyHash: hashBody(body),
      logOffset: 0,
    });
    expect(f.eventsOf('request.routed')[0]?.data).toEqual({ backend: 'file' });

    expect(submitted).toEqual([
      {
        id: 'w1-q1',
        agent: AGENT,
        workerId: 'q1',
        type: 'question',
        priority: 'high',
        attributes: { id: 'q1', priority: 'high', type: 'question' },
        body,
        bodyHash: hashBody(body),
        detectedAt: record?.detectedAt,
        preset: 'generic',
        pane: '%5',
        recent: [],
        fresh: true,
      },
    ]);
  });

  it('a block without attributes is a normal question with an id of its own', async () => {
    const { onBlock } = await setup({ session: '' });
    await onBlock({ priority: 'urgent' }, 'anything?');
    const [record] = Object.values(f.state().requests);
    expect(record).toMatchObject({ type: 'question', priority: 'normal' });
    expect(record).not.toHaveProperty('workerId');
    expect(record).not.toHaveProperty('session');
    expect(record?.id).toMatch(
      new RegExp(`^w1-\\d{8}T\\d{6}-${hashBody('anything?').slice(0, 8)}$`),
    );
  });

  it('flags a block whose output hid text, to the answerer too', async () => {
    const { onBlock, submitted } = await setup();
    await onBlock({ id: 'c1' }, 'secret?', true);
    expect(f.state().requests['w1-c1']?.concealed).toBe(true);
    expect(submitted[0]?.concealed).toBe(true);
  });

  it('drops a duplicate worker id, even after the first was finished', async () => {
    const { onBlock, submitted } = await setup();
    await onBlock({ id: 'q1' }, 'first');
    const first = f.state().requests['w1-q1'];
    if (!first) throw new Error('not recorded');
    const { steps } = f.createSteps();
    await steps.finish(first);
    expect(await onBlock({ id: 'q1' }, 'asked again')).toBe(true);
    expect(submitted).toHaveLength(1);
    expect(f.state().requests).toEqual({});
    expect(f.state().counters).toMatchObject({ detected: 1, duplicates: 1 });
    // Issue 25, point 7: the event says its answer will never come (a
    // person is called about it, attention.ts) and which request it repeats.
    expect(f.eventsOf('request.duplicate')).toEqual([
      expect.objectContaining({
        requestId: 'w1-q1',
        data: {
          reason: 'id',
          workerId: 'q1',
          unanswered: true,
          earlier: 'w1-q1',
          stage: first.stage,
          message: expect.stringMatching(
            /^w1 asked again under id q1, already used by a finished request \(w1-q1, \w+\): it is not raised, so w1 gets no answer; tell it with macs send w1/,
          ) as unknown,
          pane: '%5',
        },
      }),
    ]);
  });

  it('says a block printed again repeats a request still open, whose answer will come', async () => {
    const { requests, submitted } = await setup();
    const block = (again?: number) =>
      f.ctx.serial(() =>
        requests.onBlock({
          attributes: { id: 'q2' },
          body: 'still waiting?',
          concealed: false,
          ...(again === undefined ? {} : { again }),
        }),
      );
    await block();
    await block(2);
    expect(submitted).toHaveLength(1);
    expect(f.eventsOf('request.duplicate').map((e) => e.data)).toEqual([
      { reason: 'id', workerId: 'q2', printedAgain: 2 },
    ]);
  });

  it('drops the same body without an id while the first is pending', async () => {
    const { onBlock, submitted } = await setup();
    await onBlock({}, 'same question?');
    await onBlock({}, 'same question?');
    expect(submitted).toHaveLength(1);
    expect(Object.keys(f.state().requests)).toHaveLength(1);
    expect(f.eventsOf('request.duplicate')[0]?.data).toEqual({
      reason: 'pending',
    });
  });

  it('holds a flooding worker to the per-minute limit: recorded, not raised, one request.limited a burst', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-03-01T12:00:00.000Z'));
    const { onBlock, submitted } = await setup({
      config: { limits: { maxRequestsPerMinute: 2 } },
    });
    expect(await onBlock({ id: 'a' }, 'A')).toBe(true);
    expect(await onBlock({ id: 'b' }, 'B')).toBe(true);
    expect(await onBlock({ id: 'c' }, 'C is the third\nmore')).toBe(false);
    expect(await onBlock({ id: 'd' }, 'D')).toBe(false);
    expect(Object.keys(f.state().requests)).toEqual(['w1-a', 'w1-b']);
    expect(submitted.map((r) => r.id)).toEqual(['w1-a', 'w1-b']);
    expect(f.eventsOf('request.limited')).toEqual([
      expect.objectContaining({
        requestId: 'w1-c',
        data: expect.objectContaining({
          reason: 'requests-per-minute',
          count: 3,
          limit: 2,
          firstLine: 'C is the third',
        }) as unknown,
      }),
    ]);
    // A minute on, the same requests are requests like any others (they
    // were not remembered), up to the limit again: a new burst.
    vi.setSystemTime(new Date('2025-03-01T12:01:01.000Z'));
    expect(await onBlock({ id: 'c' }, 'C is the third\nmore')).toBe(true);
    expect(await onBlock({ id: 'd' }, 'D')).toBe(true);
    expect(await onBlock({ id: 'e' }, 'E')).toBe(false);
    expect(
      f.eventsOf('request.limited').map((e) => [e.requestId, e.data?.reason]),
    ).toEqual([
      ['w1-c', 'requests-per-minute'],
      ['w1-e', 'requests-per-minute'],
    ]);
  });

  it('one request.limited a burst of open requests over the limit', async () => {
    const { onBlock } = await setup({
      config: { limits: { maxPendingRequests: 1 } },
    });
    await onBlock({ id: 'a' }, 'A');
    expect(await onBlock({ id: 'b' }, 'B')).toBe(false);
    expect(await onBlock({ id: 'c' }, 'C')).toBe(false);
    const a = f.state().requests['w1-a'];
    if (!a) throw new Error('not recorded');
    a.stage = 'delivered'; // no longer open
    expect(await onBlock({ id: 'd' }, 'D')).toBe(true);
    expect(await onBlock({ id: 'e' }, 'E')).toBe(false);
    expect(
      f.eventsOf('request.limited').map((e) => [e.requestId, e.data?.reason]),
    ).toEqual([
      ['w1-b', 'pending-requests'],
      ['w1-e', 'pending-requests'],
    ]);
  });

  it('a block from a restarted program ends the old one’s requests first, and is the new one’s', async () => {
    const { onBlock } = await setup();
    const old = f.addRecord({ stage: 'routed' });
    f.pane.pid = 5001;
    await onBlock({ id: 'n1' }, 'new program asks');
    expect(old.stage).toBe('expired');
    expect(f.ctx.panePid).toBe(5001);
    expect(f.state().requests['w1-n1']?.panePid).toBe(5001);
    expect(f.types().slice(0, 3)).toEqual([
      'warning',
      'request.expired',
      'request.archived',
    ]);
  });

  it('a dead pane is not a restarted program', async () => {
    const { onBlock } = await setup();
    const old = f.addRecord({ stage: 'routed' });
    Object.assign(f.pane, { pid: 5001, dead: true });
    await onBlock({ id: 'n1' }, 'last words');
    expect(old.stage).toBe('routed');
    expect(f.ctx.panePid).toBe(4242);
    expect(f.state().requests['w1-n1']?.panePid).toBe(4242);
  });

  describe('route', () => {
    it('a backend that fails leaves the request detected, with an error', async () => {
      const { onBlock, behaviour } = await setup();
      behaviour.error = new Error('inbox not writable');
      expect(await onBlock({ id: 'q1' }, 'Q')).toBe(true);
      expect(f.state().requests['w1-q1']?.stage).toBe('detected');
      expect(f.types()).toEqual(['request.detected', 'error']);
      expect(f.eventsOf('error')[0]).toMatchObject({
        requestId: 'w1-q1',
        data: {
          where: 'route',
          backend: 'file',
          message: 'inbox not writable',
        },
      });
    });

    it('takes the backend the dispatcher names, and its own routed event', async () => {
      const { onBlock, behaviour } = await setup();
      behaviour.result = { backend: 'exec', recorded: true };
      await onBlock({ id: 'q1' }, 'Q');
      expect(f.state().requests['w1-q1']).toMatchObject({
        stage: 'routed',
        backend: 'exec',
      });
      expect(f.types()).toEqual(['request.detected']);
    });

    it('hands on an answer the answerer gave at once, after `routed` is recorded', async () => {
      // The slot's view of the backend answers an echo of the first
      // message's example at once; it used to call the supervisor back
      // through setImmediate. Now the submit returns the answer as a value,
      // the request is routed first, and the answer comes back to the
      // caller (the supervisor hands it to the answers room).
      const { onBlock, behaviour, answered } = await setup();
      const answer = { id: 'w1-q1', text: '', source: 'macs:protocol-example' };
      behaviour.result = { backend: 'file', recorded: false, answered: answer };
      await onBlock({ id: 'q1' }, 'Q');
      await f.ctx.serial(() => Promise.resolve());
      expect(answered).toEqual([{ answer, stage: 'routed' }]);
      expect(f.types()).toEqual(['request.detected', 'request.routed']);
    });

    it('routes a request again after a restart: not fresh, the backend it went to before', async () => {
      const { requests, submitted } = await setup();
      const record = f.addRecord({
        stage: 'routed',
        backend: 'interactive',
        routedAt: '2025-03-01T12:00:00.000Z',
      });
      await requests.route(record);
      expect(submitted[0]).toMatchObject({
        id: record.id,
        previousBackend: 'interactive',
      });
      expect(submitted[0]).not.toHaveProperty('fresh');
      expect(record).toMatchObject({
        stage: 'routed',
        backend: 'interactive',
        routedAt: '2025-03-01T12:00:00.000Z',
      });
      expect(f.types()).toEqual(['request.routed']);
    });

    it('hands the answerer the recent requests', async () => {
      const { requests, submitted } = await setup();
      const done = f.addRecord({ stage: 'delivered' });
      await f.createSteps().steps.finish(done);
      await requests.route(f.addRecord({ stage: 'detected' }));
      expect(submitted[0]?.recent?.map((r) => r.id)).toEqual([done.id]);
    });
  });
});
