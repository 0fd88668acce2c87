import { appendFileSync, statSync, truncateSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVITY_QUIET_MS } from '../../../src/bridge/agent/agent-state.js';
import {
  createCapture,
  type Capture,
} from '../../../src/bridge/intake/capture.js';
import {
  createIntake,
  type Intake,
} from '../../../src/bridge/intake/intake.js';
import type { DetectedBlock } from '../../../src/bridge/requests/block-request.js';
import {
  createActivityTracker,
  type ActivityTracker,
} from '../../../src/screen/activity.js';
import type { TmuxClient } from '../../../src/tmux/client.js';
import { FakeTmuxClient } from '../../helpers/fake-tmux.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  createStageFixture,
  type StageFixture,
  type StageFixtureOptions,
} from '../stage-fixture.js';

type CaptureOptions = Parameters<TmuxClient['capturePane']>[1];

/** The fake tmux, keeping the options of each capture-pane. */
class CapturingTmux extends FakeTmuxClient {
  readonly captures: CaptureOptions[] = [];
  override capturePane(
    pane: string,
    options?: CaptureOptions,
  ): Promise<string> {
    this.captures.push(options);
    return super.capturePane(pane);
  }
}

const START = (attrs: string) => `<<CONTROLLER_REQUEST ${attrs}>>`;
const END = '<<CONTROLLER_REQUEST_END>>';
/** A block as a line program prints it (a tty gives CRLF). */
const block = (attrs: string, ...lines: string[]) =>
  [START(attrs), ...lines, END].map((l) => `${l}\r\n`).join('');

describe('intake', () => {
  let f: StageFixture;
  let tmux: CapturingTmux;
  let capture: Capture;
  let intake: Intake;
  let activity: ActivityTracker;
  let blocks: DetectedBlock[];
  let outputs: { burst: boolean; offset: number; held: boolean }[];

  afterEach(async () => {
    await intake.stop();
    intake.dispose();
    f.cleanup();
  });

  async function setup(options: StageFixtureOptions = {}): Promise<void> {
    tmux = new CapturingTmux();
    f = await createStageFixture({
      ...options,
      tmux,
      config: { backstopMs: 20, ...options.config },
    });
    activity = createActivityTracker({ quietMs: ACTIVITY_QUIET_MS });
    blocks = [];
    outputs = [];
    capture = createCapture(f.ctx, {
      scanHistory: () => intake.scanHistory(),
      notePaneGone: () => Promise.resolve(),
    });
    intake = createIntake(f.ctx, {
      capture,
      activity,
      onBlock: (found) => {
        blocks.push(found);
        return Promise.resolve(true);
      },
      // Called right after the output was handled, under `serial`.
      afterOutput: (burst) =>
        void outputs.push({
          burst,
          offset: f.state().logOffset,
          held: intake.holdsBlock(),
        }),
    });
    // As a bridge starts: the pane piped into its log.
    await capture.ensure();
    capture.setInode(statSync(capture.logFile).ino);
  }

  const write = (text: string) => appendFileSync(capture.logFile, text);
  const logSize = () => statSync(capture.logFile).size;

  it('hands a request block drawn in the log on, with its exact body', async () => {
    await setup();
    await intake.openReader(false);
    await intake.startTail(0);
    write('$ worker\r\n');
    write(
      block('id=q1 priority=high', 'Which database?', '  Postgres or SQLite'),
    );
    await waitFor(() => blocks.length === 1);
    expect(blocks).toEqual([
      {
        attributes: { id: 'q1', priority: 'high', type: 'question' },
        body: 'Which database?\n  Postgres or SQLite',
        concealed: false,
      },
    ]);
    await waitFor(() => f.state().logOffset === logSize());
    // Saved at once: the reader reported a request.
    await waitFor(async () => (await f.saved())?.logOffset === logSize());
    expect(f.state().screenSeen).toHaveLength(1);
    expect(activity.lastOutputAt()).toBeDefined();
    expect(outputs[0]?.burst).toBe(true);
  });

  it('flags a block whose text the output hid', async () => {
    await setup();
    await intake.openReader(false);
    await intake.startTail(0);
    write(block('id=c1', 'the password is \x1b[8mhunter2\x1b[28m ok?'));
    await waitFor(() => blocks.length === 1);
    expect(blocks[0]?.concealed).toBe(true);
    expect(intake.hides(blocks[0]?.body ?? '')).toBe(true);
    expect(intake.hides('nothing hidden')).toBe(false);
  });

  it('counts and reports a malformed block', async () => {
    await setup({
      config: { maxBlockLines: 3 },
      pane: { width: 40, height: 5 },
    });
    await intake.openReader(false);
    await intake.startTail(0);
    write(`${START('id=m1')}\r\n`);
    for (let i = 0; i < 20; i += 1) write(`line ${String(i)} >\r\n`);
    await waitFor(() => f.state().counters.malformed === 1);
    expect(f.eventsOf('request.malformed')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          reason: 'max-lines',
          firstLine: START('id=m1'),
        }) as unknown,
      }),
    ]);
    expect(blocks).toEqual([]);
    await waitFor(async () => (await f.saved())?.counters.malformed === 1);
  });

  it('reports an attribute it dropped, and the request', async () => {
    await setup();
    await intake.openReader(false);
    await intake.startTail(0);
    write(block('id=ok bad=$x', 'hi?'));
    await waitFor(() => blocks.length === 1);
    expect(blocks[0]?.attributes).toEqual({ id: 'ok', type: 'question' });
    expect(f.eventsOf('request.attribute-dropped').map((e) => e.data)).toEqual([
      { key: 'bad', value: '$x', reason: 'bad-value' },
    ]);
  });

  describe('scanHistory', () => {
    const history = [
      '$ worker',
      START('id=h1'),
      'asked before the bridge',
      END,
      '❯ ',
      '',
    ].join('\n');

    it("hands on the blocks the pane's history shows, once", async () => {
      await setup({ pane: { screen: history } });
      f.state().scanPending = true;
      await intake.openReader(false);
      await f.ctx.serial(() => intake.scanHistory());
      expect(blocks).toEqual([
        {
          attributes: { id: 'h1', type: 'question' },
          body: 'asked before the bridge',
          concealed: false,
        },
      ]);
      // The whole history, wrapped lines joined; then the same with colours.
      expect(tmux.captures).toEqual([
        { start: '-', join: true },
        { start: '-', join: true, escapes: true },
      ]);
      expect(f.state().scanPending).toBeUndefined();
      expect(f.state().screenSeen).toHaveLength(1);
      const saved = await f.saved();
      expect(saved?.scanPending).toBeUndefined();
      expect(saved?.screenSeen).toEqual(f.state().screenSeen);

      // The same block printed again through the log is not new.
      await intake.startTail(0);
      write(`${history.replace(/\n/g, '\r\n')}\r\nmore output\r\n`);
      await waitFor(() => f.state().logOffset === logSize());
      expect(blocks).toHaveLength(1);
    });

    it('a resumed bridge knows the blocks it read before the saved offset', async () => {
      await setup({ pane: { screen: history } });
      write(block('id=h1', 'asked before the bridge'));
      f.state().logOffset = logSize();
      await intake.openReader(true);
      await f.ctx.serial(() => intake.scanHistory());
      expect(blocks).toEqual([]);
    });

    it('a new bridge does not', async () => {
      await setup({ pane: { screen: history } });
      write(block('id=h1', 'asked before the bridge'));
      f.state().logOffset = logSize();
      await intake.openReader(false);
      await f.ctx.serial(() => intake.scanHistory());
      expect(blocks.map((b) => b.attributes.id)).toEqual(['h1']);
    });
  });

  it('a resumed bridge reads on from its offset, reporting only what is new', async () => {
    await setup();
    write(block('id=old', 'read before the restart'));
    f.state().logOffset = logSize();
    await intake.openReader(true);
    await intake.startTail(f.state().logOffset);
    write(block('id=new', 'asked after the restart'));
    await waitFor(() => blocks.length === 1);
    expect(blocks[0]?.attributes.id).toBe('new');
  });

  it('keeps the saved offset behind a block the reader still holds', async () => {
    await setup();
    await intake.openReader(false);
    await intake.startTail(0);
    write('$ worker\r\n');
    await waitFor(() => outputs.length === 1);
    const before = logSize();
    expect(outputs[0]).toMatchObject({ offset: before, held: false });
    // A full-screen program draws a block, then moves the cursor away: the
    // reader waits for the block to stay the same a moment.
    write(`\x1b[H\x1b[2J${block('id=f1', 'drawn by a TUI')}\x1b[1;1H`);
    await waitFor(() => outputs.length === 2);
    expect(outputs[1]).toMatchObject({ offset: before, held: true });
    await waitFor(() => blocks.length === 1);
    expect(blocks[0]).toMatchObject({
      attributes: { id: 'f1' },
      body: 'drawn by a TUI',
    });
    expect(intake.holdsBlock()).toBe(false);
    expect(f.state().logOffset).toBe(logSize());
  });

  it('starts again at 0 when the log is truncated', async () => {
    await setup();
    await intake.openReader(false);
    await intake.startTail(0);
    write('some output\r\n');
    await waitFor(() => f.state().logOffset === 13);
    truncateSync(capture.logFile, 0);
    await waitFor(() => f.eventsOf('capture.truncated').length === 1);
    expect(f.eventsOf('capture.truncated')[0]?.data).toEqual({
      previousOffset: 13,
      size: 0,
    });
    expect(f.state().logOffset).toBe(0);
    expect(f.state().logInode).toBe(statSync(capture.logFile).ino);
    write(block('id=t1', 'after the truncation'));
    await waitFor(() => blocks.length === 1);
    expect(f.state().logOffset).toBe(logSize());
  });
});
