import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAnswers,
  type Answers,
} from '../../../src/bridge/answers/answers.js';
import type { BackendAnswer } from '../../../src/backends/types.js';
import { answerByPath } from '../../../src/state/outbox.js';
import type { RequestRecord } from '../../../src/state/types.js';
import {
  createStageFixture,
  type StageFixture,
  type StageFixtureOptions,
} from '../stage-fixture.js';

describe('answers', () => {
  let f: StageFixture;
  let answers: Answers;
  let delivered: RequestRecord[];
  let decidedByHook: RequestRecord[];
  let calledOff: string[];

  afterEach(() => f.cleanup());

  async function setup(options: StageFixtureOptions = {}): Promise<void> {
    f = await createStageFixture(options);
    const created = f.createSteps();
    calledOff = created.calledOff;
    delivered = [];
    decidedByHook = [];
    answers = createAnswers(f.ctx, {
      steps: created.steps,
      decideByHook: (record) => {
        decidedByHook.push(record);
        return Promise.resolve();
      },
      deliver: (record) => void delivered.push(record),
    });
  }

  const answer = (
    record: { id: string },
    text: string,
    source = `outbox/${record.id}.txt`,
  ): BackendAnswer => ({ id: record.id, text, source });

  function writeOutbox(name: string): string {
    const file = path.join(f.paths.outbox, name);
    mkdirSync(f.paths.outbox, { recursive: true });
    writeFileSync(file, 'x');
    return file;
  }

  it('takes no answer while the state is not read yet', async () => {
    await setup({ withState: false });
    expect(await answers.onAnswer(answer({ id: 'w1-a' }, 'go'))).toBe(
      'already-answered',
    );
    expect(f.events).toEqual([]);
  });

  it('does not know a request it never had', async () => {
    await setup();
    expect(await answers.onAnswer(answer({ id: 'w1-zzz' }, 'go'))).toBe(
      'unknown-request',
    );
  });

  it('cleans up a leftover answer of a request already archived', async () => {
    await setup();
    const record = f.addRecord({ stage: 'delivered' });
    await f.createSteps().steps.finish(record);
    const leftover = writeOutbox(`${record.id}.txt`);
    expect(await answers.onAnswer(answer(record, 'go'))).toBe(
      'already-answered',
    );
    expect(existsSync(leftover)).toBe(false);
  });

  it.each(['routed', 'detected'] as const)(
    'records the answer of a %s request, split into instructions and notes, then hands it to delivery',
    async (stage) => {
      await setup();
      const record = f.addRecord({ stage });
      const text = 'Use Postgres\n\nNOTES:\nchecked the load first';
      expect(await answers.onAnswer(answer(record, text))).toBe('accepted');
      expect(record).toMatchObject({
        stage: 'answered',
        response: {
          instructions: 'Use Postgres',
          notes: 'checked the load first',
          source: `outbox/${record.id}.txt`,
          raw: text,
        },
      });
      expect(record.answeredAt).toBeDefined();
      expect(record).not.toHaveProperty('decision');
      expect((await f.saved())?.requests[record.id]?.stage).toBe('answered');
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        [
          'request.answered',
          {
            source: `outbox/${record.id}.txt`,
            chars: 'Use Postgres'.length,
            notesChars: 'checked the load first'.length,
            notes: 'checked the load first',
          },
        ],
      ]);
      expect(delivered).toEqual([record]);
    },
  );

  it('keeps the notes with the instructions when noSplit is set', async () => {
    await setup({ config: { noSplit: true } });
    const record = f.addRecord();
    await answers.onAnswer(answer(record, 'Use Postgres\nNOTES:\nall of it'));
    expect(record.response).toMatchObject({
      instructions: 'Use Postgres\nNOTES:\nall of it',
      notes: '',
    });
  });

  it('takes one answer per request', async () => {
    await setup();
    const record = f.addRecord();
    await answers.onAnswer(answer(record, 'first'));
    expect(await answers.onAnswer(answer(record, 'second'))).toBe(
      'already-answered',
    );
    expect(record.response?.instructions).toBe('first');
    expect(delivered).toHaveLength(1);
  });

  it('archives an answer with nothing to type, never delivered', async () => {
    await setup();
    const record = f.addRecord();
    expect(
      await answers.onAnswer(answer(record, 'NOTES:\nnothing for the worker')),
    ).toBe('accepted');
    expect(record.stage).toBe('answered-empty');
    expect(delivered).toEqual([]);
    expect(f.types()).toEqual(['request.answered-empty', 'request.archived']);
    expect(f.state().requests).toEqual({});
    expect(f.state().recent[0]).toMatchObject({
      id: record.id,
      stage: 'answered-empty',
    });
  });

  it("hands a hook's approval to its decision file, never to delivery", async () => {
    await setup();
    const record = f.addRecord({ type: 'approval', origin: 'hook' });
    expect(await answers.onAnswer(answer(record, 'allow', 'exec:codex'))).toBe(
      'accepted',
    );
    expect(decidedByHook).toEqual([record]);
    expect(delivered).toEqual([]);
    // The hook records the decision once it is applied.
    expect(record).not.toHaveProperty('decision');
    expect(f.eventsOf('request.answered')[0]?.data).toMatchObject({
      decidedBy: 'controller',
      via: 'exec:codex',
    });
  });

  it("records no decision for a screen's approval when it is answered", async () => {
    await setup();
    const record = f.addRecord({ type: 'approval', origin: 'screen' });
    await answers.onAnswer(answer(record, 'deny', 'exec:codex'));
    expect(record).not.toHaveProperty('decision');
    expect(delivered).toEqual([record]);
  });

  describe("a worker's own approval: the decision is the answer's first word", () => {
    it.each([
      { text: 'deny: too risky', decision: 'deny' },
      { text: '**Approve** — go ahead', decision: 'allow' },
      { text: 'maybe tomorrow', decision: undefined },
    ])('$text', async ({ text, decision }) => {
      await setup();
      const record = f.addRecord({ type: 'approval' });
      await answers.onAnswer(answer(record, text, 'exec:codex'));
      expect(record.decision).toEqual({
        ...(decision ? { decision } : {}),
        decidedBy: 'controller',
        via: 'exec:codex',
        reason: text,
        at: record.answeredAt,
      });
      expect(delivered).toEqual([record]);
    });

    it("a person's outbox answer is the person's decision", async () => {
      await setup();
      const record = f.addRecord({ type: 'approval' });
      await answers.onAnswer(answer(record, 'no'));
      expect(record.decision).toMatchObject({
        decision: 'deny',
        decidedBy: 'person',
        via: 'outbox',
      });
    });

    it("the controller's tool call behind an outbox answer decides, and is recorded", async () => {
      await setup();
      const record = f.addRecord({ type: 'approval' });
      const by = answerByPath(f.paths, record.id);
      mkdirSync(path.dirname(by), { recursive: true });
      writeFileSync(
        by,
        JSON.stringify({ id: record.id, by: 'mcp:decide_approval' }),
      );
      await answers.onAnswer(answer(record, 'yes'));
      expect(record.response?.by).toBe('mcp:decide_approval');
      expect(record.decision).toMatchObject({
        decision: 'allow',
        decidedBy: 'controller',
        via: 'mcp:decide_approval',
      });
      expect(f.eventsOf('request.answered')[0]?.data).toMatchObject({
        by: 'mcp:decide_approval',
        decidedBy: 'controller',
        via: 'mcp:decide_approval',
      });
      expect(existsSync(by)).toBe(false);
    });

    it('an empty answer decides nothing', async () => {
      await setup();
      const record = f.addRecord({ type: 'approval' });
      await answers.onAnswer(answer(record, '  \n', 'exec:codex'));
      expect(record.stage).toBe('answered-empty');
      expect(f.state().recent[0]).not.toHaveProperty('decision');
    });
  });

  describe('dismiss', () => {
    const dismissal = (
      record: RequestRecord,
      by: { reason: string; by: string },
    ): BackendAnswer => ({
      id: record.id,
      text: '',
      source: `outbox/${record.id}.dismiss`,
      dismiss: by,
    });

    it.each(['detected', 'routed', 'answered'] as const)(
      'ends a request not typed yet (%s): dismissed, its delivery called off',
      async (stage) => {
        await setup();
        const record = f.addRecord({ stage });
        expect(
          await answers.onAnswer(
            dismissal(record, { reason: 'not needed', by: 'alice' }),
          ),
        ).toBe('accepted');
        expect(record.stage).toBe('dismissed');
        expect(record.closed).toMatchObject({
          reason: 'not needed',
          by: 'alice',
        });
        expect(calledOff).toEqual([record.id]);
        expect(f.types()).toEqual(['request.dismissed', 'request.archived']);
        expect(f.state().requests).toEqual({});
        expect(delivered).toEqual([]);
      },
    );

    it('says dismissed by a person when the dismissal names no reason or person', async () => {
      await setup();
      const record = f.addRecord();
      await answers.onAnswer(dismissal(record, { reason: '', by: '' }));
      expect(record.closed).toMatchObject({
        reason: 'dismissed',
        by: 'person',
      });
    });

    it.each(['delivering', 'pasted'] as const)(
      'is too late once typing began (%s): a warning, and the dismissal file goes',
      async (stage) => {
        await setup();
        const record = f.addRecord({ stage });
        const file = writeOutbox(`${record.id}.dismiss`);
        expect(
          await answers.onAnswer(
            dismissal(record, { reason: 'not needed', by: 'alice' }),
          ),
        ).toBe('already-answered');
        expect(record.stage).toBe(stage);
        expect(f.state().requests[record.id]).toBe(record);
        expect(existsSync(file)).toBe(false);
        expect(calledOff).toEqual([]);
        expect(f.events.map((e) => [e.type, e.data?.message])).toEqual([
          [
            'warning',
            `not dismissed: typing its answer had begun (stage ${stage})`,
          ],
        ]);
      },
    );
  });

  describe('stillAsked (right before typing)', () => {
    it('is true for an open answered request in the pane and program that asked', async () => {
      await setup();
      const record = f.addRecord({ stage: 'answered' });
      expect(await answers.stillAsked(record)).toBe(true);
      f.pane.agentTag = 'w1'; // tagged for this agent: still ours
      expect(await answers.stillAsked(record)).toBe(true);
      expect(f.events).toEqual([]);
    });

    it('is false for a request no longer open or not answered', async () => {
      await setup();
      const routed = f.addRecord({ stage: 'routed' });
      expect(await answers.stillAsked(routed)).toBe(false);
      const replaced = f.addRecord({ stage: 'answered' });
      f.state().requests[replaced.id] = { ...replaced };
      expect(await answers.stillAsked(replaced)).toBe(false);
    });

    it('is false while the pane is dead or gone, and the request is kept', async () => {
      await setup();
      const record = f.addRecord({ stage: 'answered' });
      f.pane.dead = true;
      expect(await answers.stillAsked(record)).toBe(false);
      f.tmux.panes.delete(f.pane.id);
      expect(await answers.stillAsked(record)).toBe(false);
      expect(record.stage).toBe('answered');
      expect(f.events).toEqual([]);
    });

    it('expires the request when the pane is tagged for another agent now', async () => {
      await setup();
      const record = f.addRecord({ stage: 'answered' });
      f.pane.agentTag = 'w2';
      expect(await answers.stillAsked(record)).toBe(false);
      expect(record.stage).toBe('expired');
      expect(f.eventsOf('request.expired')[0]?.data).toEqual({
        reason: "pane %5 is now tagged for agent 'w2'",
        by: 'bridge',
      });
      expect(f.state().requests).toEqual({});
    });

    it('ends the requests of a program that was restarted', async () => {
      await setup();
      const record = f.addRecord({ stage: 'answered' });
      f.pane.pid = 5001;
      expect(await answers.stillAsked(record)).toBe(false);
      expect(f.ctx.panePid).toBe(5001);
      expect(record.stage).toBe('expired');
      expect(f.types()).toEqual([
        'warning',
        'request.expired',
        'request.archived',
      ]);
    });
  });
});
