import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventLog, readEvents } from '../../src/events/log.js';
import { createLogger } from '../../src/log/logger.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { isDeliveryPaused } from '../../src/state/person-controls.js';
import { takeAnswerBy } from '../../src/state/outbox.js';
import { createSnapshotReader } from '../../src/state/snapshot.js';
import { runWebAction, type WebActionDeps } from '../../src/web/actions.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';

// The page's actions: the checks of the CLI and MCP paths, a refusal as a
// reply (never a throw), and a `web.action` event with by: web each time.
describe('runWebAction', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let deps: WebActionDeps;
  let snapshot: Awaited<ReturnType<WebActionDeps['reader']['read']>>;
  const signal = new AbortController().signal;

  beforeEach(async () => {
    fx = createHomeFixture();
    const reader = createSnapshotReader(fx.paths);
    deps = {
      paths: fx.paths,
      config: ConfigSchema.parse({}),
      env: {},
      reader,
      feed: { current: () => snapshot },
      events: createEventLog(fx.paths),
      log: createLogger({ level: 'silent' }),
      refresh: () => Promise.resolve(),
    };
    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-1'] = makeRecord({ id: 'worker-1-q-1' });
      s.requests['worker-1-a-1'] = makeRecord({
        id: 'worker-1-a-1',
        workerId: 'a-1',
        type: 'approval',
        body: 'May I push?',
      });
    });
    fx.writeInboxMeta('worker-1-q-1', { id: 'worker-1-q-1' });
    fx.writeInboxMeta('worker-1-a-1', { id: 'worker-1-a-1' });
    snapshot = await reader.read();
  });
  afterEach(() => fx.cleanup());

  const webEvents = async () =>
    (await readEvents(fx.paths, { type: 'web.action' })).map((e) => ({
      agent: e.agent,
      requestId: e.requestId,
      action: e.data?.action,
      ok: e.data?.ok,
      by: e.data?.by,
    }));

  it('answers once through the outbox, noted web:answer; a second answer is refused', async () => {
    const first = await runWebAction(
      deps,
      'answer',
      { id: 'worker-1-q-1', text: 'Use main.' },
      signal,
    );
    expect(first.ok).toBe(true);
    expect(await takeAnswerBy(fx.paths, 'worker-1-q-1')).toBe('web:answer');
    const again = await runWebAction(
      deps,
      'answer',
      { id: 'worker-1-q-1', text: 'Use dev.' },
      signal,
    );
    expect(again).toMatchObject({ ok: false });
    expect(again.message).toMatch(/already|not answered twice/);
    expect(await webEvents()).toEqual([
      {
        agent: 'worker-1',
        requestId: 'worker-1-q-1',
        action: 'answer',
        ok: true,
        by: 'web',
      },
      {
        agent: 'worker-1',
        requestId: 'worker-1-q-1',
        action: 'answer',
        ok: false,
        by: 'web',
      },
    ]);
  });

  it('decides only approvals; refuses bad input and an unknown action body with a reason', async () => {
    const wrong = await runWebAction(
      deps,
      'decide',
      { id: 'worker-1-q-1', decision: 'allow', reason: 'fine' },
      signal,
    );
    expect(wrong.message).toMatch(/not an approval/);
    const decided = await runWebAction(
      deps,
      'decide',
      { id: 'worker-1-a-1', decision: 'deny', reason: 'not today' },
      signal,
    );
    expect(decided.ok).toBe(true);
    expect(await takeAnswerBy(fx.paths, 'worker-1-a-1')).toBe(
      'web:decide_approval',
    );
    const bad = await runWebAction(
      deps,
      'decide',
      { id: '../etc/passwd', decision: 'maybe', reason: '' },
      signal,
    );
    expect(bad.ok).toBe(false);
    expect(bad.message).toMatch(/^bad input/);
    const noSend = await runWebAction(
      deps,
      'send',
      { agent: 'worker-1', text: 'hi' },
      signal,
    );
    expect(noSend).toMatchObject({ ok: false });
    expect(noSend.message).toMatch(/--allow-send/);
  });

  it('pauses and resumes through the control file, by web; an unknown agent is refused', async () => {
    expect(
      (await runWebAction(deps, 'pause', { agent: 'worker-1' }, signal)).ok,
    ).toBe(true);
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(true);
    expect(
      (await runWebAction(deps, 'resume', { agent: 'worker-1' }, signal)).ok,
    ).toBe(true);
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(false);
    expect(
      (await readEvents(fx.paths, { agent: 'worker-1' }))
        .filter((e) => e.type.startsWith('delivery.'))
        .map((e) => [e.type, e.data?.by]),
    ).toEqual([
      ['delivery.paused', 'web'],
      ['delivery.resumed', 'web'],
    ]);
    const unknown = await runWebAction(
      deps,
      'pause',
      { agent: 'worker-9' },
      signal,
    );
    expect(unknown).toMatchObject({ ok: false });
    expect(unknown.message).toMatch(/no agent 'worker-9'/);
    expect((await webEvents()).map((e) => [e.action, e.by, e.ok])).toEqual([
      ['pause', 'web', true],
      ['resume', 'web', true],
      ['pause', 'web', false],
    ]);
  });
});
