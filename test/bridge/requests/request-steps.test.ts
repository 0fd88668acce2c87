import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestSteps } from '../../../src/bridge/requests/request-steps.js';
import type { RequestRecord } from '../../../src/state/types.js';
import {
  createStageFixture,
  storedResponse,
  type StageFixture,
} from '../stage-fixture.js';

describe('request steps', () => {
  let f: StageFixture;
  let steps: RequestSteps;
  let calledOff: string[];

  beforeEach(async () => {
    f = await createStageFixture({ session: 's-1' });
    ({ steps, calledOff } = f.createSteps());
  });
  afterEach(() => f.cleanup());

  /** The inbox and outbox files a request has while it is pending. */
  function writeRequestFiles(id: string): string[] {
    const files = [
      path.join(f.paths.inbox, `${id}.json`),
      path.join(f.paths.inbox, `${id}.txt`),
      path.join(f.paths.outbox, `${id}.txt`),
      path.join(f.paths.outbox, `${id}.dismiss`),
    ];
    for (const file of files) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'x');
    }
    return files;
  }

  const archiveFile = (record: RequestRecord, suffix: string) =>
    path.join(
      f.paths.archive,
      record.detectedAt.slice(0, 10),
      `${record.id}${suffix}`,
    );

  describe('finish', () => {
    it('archives the request, retires it, saves, removes its files, then says so', async () => {
      const record = f.addRecord({
        stage: 'delivered',
        response: storedResponse('Use Postgres'),
      });
      const files = writeRequestFiles(record.id);
      await f.ctx.serial(() => steps.finish(record));

      expect(readFileSync(archiveFile(record, '.request.txt'), 'utf8')).toBe(
        record.body,
      );
      expect(readFileSync(archiveFile(record, '.response.txt'), 'utf8')).toBe(
        'Use Postgres',
      );
      const meta = f.archived(record);
      expect(meta).toMatchObject({ id: record.id, stage: 'delivered' });
      expect(meta).not.toHaveProperty('body');
      expect(f.state().requests).toEqual({});
      expect(f.state().recent[0]).toMatchObject({
        id: record.id,
        stage: 'delivered',
      });
      const saved = await f.saved();
      expect(saved?.requests).toEqual({});
      expect(saved?.recent.map((r) => r.id)).toEqual([record.id]);
      for (const file of files) expect(existsSync(file)).toBe(false);
      expect(f.events.map((e) => [e.type, e.requestId, e.data])).toEqual([
        ['request.archived', record.id, { stage: 'delivered' }],
      ]);
    });

    it('archives no response file for a request without an answer', async () => {
      const record = f.addRecord({ stage: 'expired' });
      await steps.finish(record);
      expect(existsSync(archiveFile(record, '.request.txt'))).toBe(true);
      expect(existsSync(archiveFile(record, '.response.txt'))).toBe(false);
    });
  });

  it('refinish updates the archived record and the recent list', async () => {
    const record = f.addRecord({ stage: 'delivered' });
    await steps.finish(record);
    record.stage = 'confirmed';
    record.confirmedAt = '2025-03-01T12:10:00.000Z';
    await steps.refinish(record);
    expect(f.archived(record)).toMatchObject({
      stage: 'confirmed',
      confirmedAt: '2025-03-01T12:10:00.000Z',
    });
    expect(f.state().recent[0]).toMatchObject({
      id: record.id,
      stage: 'confirmed',
    });
    // Only the archived record: no second archive event.
    expect(f.types(record.id)).toEqual(['request.archived']);
  });

  describe('closeUnanswered', () => {
    it('expires a request: calls off its delivery, says why, archives it', async () => {
      const record = f.addRecord({ stage: 'answered' });
      await steps.closeUnanswered(record, 'expired', 'pane gone', 'bridge');
      expect(calledOff).toEqual([record.id]);
      expect(record.stage).toBe('expired');
      expect(record.closed).toMatchObject({
        reason: 'pane gone',
        by: 'bridge',
      });
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        ['request.expired', { reason: 'pane gone', by: 'bridge' }],
        ['request.archived', { stage: 'expired' }],
      ]);
      expect(f.state().requests).toEqual({});
      expect(f.archived(record)).toMatchObject({
        stage: 'expired',
        closed: { reason: 'pane gone', by: 'bridge' },
      });
    });

    it('dismisses a request with request.dismissed', async () => {
      const record = f.addRecord({ stage: 'routed' });
      await steps.closeUnanswered(record, 'dismissed', 'not needed', 'person');
      expect(record.stage).toBe('dismissed');
      expect(f.types()).toEqual(['request.dismissed', 'request.archived']);
      expect(f.eventsOf('request.dismissed')[0]?.data).toEqual({
        reason: 'not needed',
        by: 'person',
      });
    });
  });

  it('recordUnconfirmed records the stage, saves it and says why', async () => {
    const record = f.addRecord({ stage: 'pasted' });
    await steps.recordUnconfirmed(record, 'the pane died');
    expect(record.stage).toBe('unconfirmed');
    expect((await f.saved())?.requests[record.id]?.stage).toBe('unconfirmed');
    expect(f.events.map((e) => [e.type, e.data])).toEqual([
      ['delivery.unconfirmed', { reason: 'the pane died' }],
    ]);
    // Still open in memory: the caller archives it.
    expect(f.state().requests[record.id]).toBe(record);
  });

  describe('markDelivered', () => {
    const delivery = { method: 'paste', chars: 12, waitedMs: 30 };

    it('records the delivery once', async () => {
      const record = f.addRecord({ stage: 'pasted' });
      await steps.markDelivered(record, delivery);
      const at = record.deliveredAt;
      expect(record.stage).toBe('delivered');
      expect(at).toBeDefined();
      expect(f.state().counters.delivered).toBe(1);
      expect((await f.saved())?.requests[record.id]?.stage).toBe('delivered');
      await steps.markDelivered(record, { ...delivery, chars: 99 });
      expect(record.deliveredAt).toBe(at);
      expect(f.state().counters.delivered).toBe(1);
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        ['request.delivered', delivery],
      ]);
    });

    it('leaves a request a hook confirmed already confirmed', async () => {
      const record = f.addRecord({ stage: 'confirmed' });
      await steps.markDelivered(record, delivery);
      expect(record.stage).toBe('confirmed');
      expect(record.deliveredAt).toBeDefined();
      expect(f.state().counters.delivered).toBe(1);
    });
  });

  it('recordResumedDelivery records the delivery with its method and archives it', async () => {
    const record = f.addRecord({ stage: 'pasted' });
    await steps.recordResumedDelivery(record, 'submit-after-restart');
    expect(record.stage).toBe('delivered');
    expect(record.deliveredAt).toBeDefined();
    expect(f.state().counters.delivered).toBe(1);
    expect(f.events.map((e) => [e.type, e.data])).toEqual([
      ['request.delivered', { method: 'submit-after-restart' }],
      ['request.archived', { stage: 'delivered' }],
    ]);
    expect(f.state().requests).toEqual({});
  });

  describe('endForeign', () => {
    it('leaves a request the agent as it runs now asked', async () => {
      const record = f.addRecord({ stage: 'answered' });
      expect(await steps.endForeign(record)).toBe(false);
      expect(record.stage).toBe('answered');
      expect(f.events).toEqual([]);
      expect(calledOff).toEqual([]);
    });

    it.each([
      {
        what: 'another session',
        over: { session: 's-0' },
        reason: 'asked in an earlier macs session (s-0); this is session s-1',
      },
      {
        what: 'another pane',
        over: { pane: '%9' },
        reason: 'asked in pane %9; the agent now runs in pane %5',
      },
      {
        what: 'another program in the pane',
        over: { panePid: 17 },
        reason:
          'the program in pane %5 was restarted since it asked (pid 17, now 4242)',
      },
    ])('expires a request of $what, never typed', async ({ over, reason }) => {
      const record = f.addRecord({ stage: 'answered', ...over });
      expect(await steps.endForeign(record)).toBe(true);
      expect(record.stage).toBe('expired');
      expect(calledOff).toEqual([record.id]);
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        ['request.expired', { reason, by: 'bridge' }],
        ['request.archived', { stage: 'expired' }],
      ]);
      expect(f.state().requests).toEqual({});
    });

    it.each(['delivering', 'pasted'] as const)(
      'records one whose typing had begun (%s) unconfirmed and archives it',
      async (stage) => {
        const record = f.addRecord({ stage, session: 's-0' });
        expect(await steps.endForeign(record)).toBe(true);
        expect(record.stage).toBe('unconfirmed');
        expect(f.types()).toEqual(['delivery.unconfirmed', 'request.archived']);
        expect(f.eventsOf('delivery.unconfirmed')[0]?.data?.reason).toBe(
          'asked in an earlier macs session (s-0); this is session s-1; typing had begun in the program that asked, so it is not completed in this one',
        );
        expect(f.state().requests).toEqual({});
      },
    );

    it('does nothing for a record the state no longer holds', async () => {
      const record = f.addRecord({ stage: 'answered', session: 's-0' });
      f.state().requests[record.id] = { ...record };
      expect(await steps.endForeign(record)).toBe(false);
      expect(f.events).toEqual([]);
    });
  });

  describe('onProgramRestarted', () => {
    it('ends the open requests of the program that asked, and follows the new pid', async () => {
      const old = f.addRecord({ stage: 'routed' });
      const typing = f.addRecord({ stage: 'pasted' });
      await steps.onProgramRestarted(5001);
      expect(f.ctx.panePid).toBe(5001);
      expect(f.eventsOf('warning')[0]?.data).toEqual({
        message:
          'the program in pane %5 was restarted (pid 4242, now 5001); its open requests are ended',
        pane: '%5',
        pid: 5001,
        previousPid: 4242,
      });
      expect(old.stage).toBe('expired');
      expect(typing.stage).toBe('unconfirmed');
      expect(f.state().requests).toEqual({});
      expect(f.types(old.id)).toEqual(['request.expired', 'request.archived']);
      expect(f.types(typing.id)).toEqual([
        'delivery.unconfirmed',
        'request.archived',
      ]);
    });

    it('keeps a request the new program asked', async () => {
      const mine = f.addRecord({ stage: 'routed', panePid: 5001 });
      await steps.onProgramRestarted(5001);
      expect(f.state().requests[mine.id]).toBe(mine);
      expect(mine.stage).toBe('routed');
    });

    it('does nothing for the same pid, or before the pid is known', async () => {
      const record = f.addRecord({ stage: 'routed' });
      await steps.onProgramRestarted(4242);
      f.ctx.panePid = undefined;
      await steps.onProgramRestarted(5001);
      expect(f.ctx.panePid).toBeUndefined();
      expect(f.events).toEqual([]);
      expect(f.state().requests[record.id]).toBe(record);
    });
  });

  it('onRelaunchedInShell ends every open request: unconfirmed once typing began, else expired', async () => {
    const waiting = f.addRecord({ stage: 'answered' });
    const typing = f.addRecord({ stage: 'delivering' });
    await steps.onRelaunchedInShell('claude');
    const reason =
      'the agent exited to its shell and was started again (claude); the new program never asked this';
    expect(f.events[0]).toMatchObject({
      type: 'warning',
      data: {
        message:
          'w1 was started again in its shell; its open requests are ended',
        pane: '%5',
      },
    });
    expect(waiting.stage).toBe('expired');
    expect(f.eventsOf('request.expired')[0]).toMatchObject({
      requestId: waiting.id,
      data: { reason, by: 'bridge' },
    });
    expect(calledOff).toContain(waiting.id);
    expect(typing.stage).toBe('unconfirmed');
    expect(f.eventsOf('delivery.unconfirmed')[0]).toMatchObject({
      requestId: typing.id,
      data: { reason },
    });
    expect(f.state().requests).toEqual({});
    expect(
      f
        .state()
        .recent.map((r) => r.id)
        .sort(),
    ).toEqual([waiting.id, typing.id].sort());
  });
});
