import {
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCapture,
  type Capture,
} from '../../../src/bridge/intake/capture.js';
import { AgentError } from '../../../src/errors.js';
import { paneLogPath } from '../../../src/home/paths.js';
import {
  AGENT,
  createStageFixture,
  type StageFixture,
  type StageFixtureOptions,
} from '../stage-fixture.js';

describe('capture', () => {
  let f: StageFixture;
  let capture: Capture;
  let logFile: string;
  let scans: number;
  let paneGoneNoted: number;

  afterEach(() => f.cleanup());

  async function setup(options: StageFixtureOptions = {}): Promise<void> {
    f = await createStageFixture(options);
    logFile = paneLogPath(f.paths, AGENT);
    scans = 0;
    paneGoneNoted = 0;
    capture = createCapture(f.ctx, {
      scanHistory: () => {
        scans += 1;
        return Promise.resolve();
      },
      notePaneGone: () => {
        paneGoneNoted += 1;
        return Promise.resolve();
      },
    });
  }

  const pipes = () => f.tmux.commands.filter((c) => c[0] === 'pipe-pane');

  /** Pipe the pane as a start does: ensure, then the log's inode. */
  async function started(): Promise<void> {
    await capture.ensure();
    capture.setInode(statSync(logFile).ino);
  }

  describe('ensure', () => {
    it('tags the pane, pipes it into the log, and says so', async () => {
      await setup();
      f.ctx.panePid = undefined;
      expect(capture.logFile).toBe(logFile);
      expect(await capture.ensure()).toBe(true);
      expect(f.pane).toMatchObject({
        piped: true,
        agentTag: AGENT,
        pipeTag: logFile,
      });
      expect(pipes()).toEqual([
        ['pipe-pane', '-t', '%5', `exec cat >> '${logFile}'`],
      ]);
      expect(existsSync(logFile)).toBe(true);
      // Who may take answers: the program the pane runs.
      expect(f.ctx.panePid).toBe(4242);
      expect(f.events.map((e) => [e.type, e.data])).toEqual([
        ['capture.started', { pane: '%5', log: logFile, replacedPipe: false }],
      ]);
    });

    it('keeps our own pipe, and replaces it when forced', async () => {
      await setup();
      await capture.ensure();
      expect(await capture.ensure()).toBe(false);
      expect(pipes()).toHaveLength(1);
      expect(f.types()).toEqual(['capture.started']);
      expect(await capture.ensure(true)).toBe(true);
      expect(pipes()).toHaveLength(2);
      expect(f.events[1]?.data).toEqual({
        pane: '%5',
        log: logFile,
        replacedPipe: true,
        reopened: true,
      });
    });

    it('keeps the pid it knows already', async () => {
      await setup();
      f.ctx.panePid = 17;
      await capture.ensure();
      expect(f.ctx.panePid).toBe(17);
    });

    it('refuses a pane tagged for another agent, and pipes nothing', async () => {
      await setup({ pane: { agentTag: 'w2' } });
      await expect(capture.ensure()).rejects.toThrow(AgentError);
      expect(pipes()).toEqual([]);
      expect(f.events).toEqual([]);
    });
  });

  describe('rotation', () => {
    it('renames the log aside once read past paneLogMaxBytes, unless a block is held', async () => {
      await setup({ config: { paneLogMaxBytes: 100 } });
      await started();
      writeFileSync(logFile, 'x'.repeat(120));
      capture.maybeRotate(99, false);
      expect(existsSync(`${logFile}.rotated`)).toBe(false);
      capture.maybeRotate(120, true);
      expect(existsSync(`${logFile}.rotated`)).toBe(false);
      capture.maybeRotate(100, false);
      expect(existsSync(logFile)).toBe(false);
      expect(readFileSync(`${logFile}.rotated`, 'utf8')).toBe('x'.repeat(120));
    });

    it('rotates once until the old log is read to its end', async () => {
      await setup({ config: { paneLogMaxBytes: 10 } });
      await started();
      capture.maybeRotate(20, false);
      writeFileSync(logFile, 'new log');
      capture.maybeRotate(500, false);
      expect(readFileSync(logFile, 'utf8')).toBe('new log');

      expect(await capture.rotated()).toBe(true);
      expect(existsSync(`${logFile}.rotated`)).toBe(false);
      expect(f.eventsOf('capture.rotated').map((e) => e.data)).toEqual([
        { log: logFile, maxBytes: 10 },
      ]);
      expect(await capture.rotated()).toBe(false);
      expect(f.eventsOf('capture.rotated')).toHaveLength(1);
      // And again once past the limit.
      capture.maybeRotate(500, false);
      expect(readFileSync(`${logFile}.rotated`, 'utf8')).toBe('new log');
    });

    it('a log replaced by someone else is not our rotation', async () => {
      await setup();
      await started();
      expect(await capture.rotated()).toBe(false);
      expect(f.eventsOf('capture.rotated')).toEqual([]);
    });

    it('a log that cannot be renamed is left, and no rotation is pending', async () => {
      await setup({ config: { paneLogMaxBytes: 10 } });
      await started();
      rmSync(logFile);
      capture.maybeRotate(20, false);
      expect(await capture.rotated()).toBe(false);
    });
  });

  describe('reopen', () => {
    it('pipes the pane into a new log when the log was deleted, and scans its history', async () => {
      await setup();
      await started();
      rmSync(logFile);
      await f.ctx.serial(() => capture.reopen());
      expect(pipes()).toHaveLength(2);
      expect(existsSync(logFile)).toBe(true);
      expect(capture.inode).toBe(statSync(logFile).ino);
      expect(f.state().scanPending).toBe(true);
      expect((await f.saved())?.scanPending).toBe(true);
      expect(scans).toBe(1);
      expect(f.types()).toEqual([
        'capture.started',
        'capture.started',
        'warning',
      ]);
      expect(f.eventsOf('warning')[0]?.data?.message).toBe(
        `the pane log ${logFile} was deleted or replaced while the bridge ran; the pane is piped into a new log and reading goes on`,
      );
    });

    it('pipes the pane again when the log was replaced by another file', async () => {
      await setup();
      await started();
      const other = `${logFile}.other`;
      writeFileSync(other, 'someone else');
      renameSync(other, logFile);
      await capture.reopen();
      expect(pipes()).toHaveLength(2);
      expect(capture.inode).toBe(statSync(logFile).ino);
      expect(scans).toBe(1);
    });

    it('does nothing while our pipe writes into the file the path names', async () => {
      await setup();
      await started();
      await capture.reopen();
      expect(pipes()).toHaveLength(1);
      expect(scans).toBe(0);
      expect(f.types()).toEqual(['capture.started']);
    });

    it('scans nothing after our own rotation: the old log is read to its end', async () => {
      await setup({ config: { paneLogMaxBytes: 10 } });
      await started();
      capture.maybeRotate(20, false);
      await capture.reopen();
      expect(pipes()).toHaveLength(2);
      expect(existsSync(logFile)).toBe(true);
      expect(scans).toBe(0);
      expect(f.state().scanPending).toBeUndefined();
      expect(f.eventsOf('warning')).toEqual([]);
    });

    it('reports a pane that is gone, and tells the owner', async () => {
      await setup();
      await started();
      rmSync(logFile);
      f.tmux.panes.delete(f.pane.id);
      await capture.reopen();
      expect(f.eventsOf('error').map((e) => e.data?.where)).toEqual([
        'capture',
      ]);
      expect(paneGoneNoted).toBe(1);
      expect(scans).toBe(0);
      expect(f.eventsOf('warning')).toEqual([]);
    });

    it('does nothing once stopped', async () => {
      await setup();
      await started();
      rmSync(logFile);
      f.ctx.markStopped();
      await capture.reopen();
      expect(pipes()).toHaveLength(1);
      expect(existsSync(logFile)).toBe(false);
    });
  });

  it('release closes our pipe and untags it, once', async () => {
    await setup();
    await started();
    expect(await capture.release()).toBe(true);
    expect(f.pane).toMatchObject({ piped: false, pipeTag: '' });
    expect(f.pane.agentTag).toBe(AGENT);
    expect(await capture.release()).toBe(false);
  });
});
