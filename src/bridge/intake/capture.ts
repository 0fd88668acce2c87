/**
 * Capture: the agent's pane piped into its log file (`pipe-pane`), kept so
 * while the bridge runs. The pane is claimed first (pane-claim.ts); a log
 * deleted or replaced under the bridge is piped anew at once; a log grown
 * past `paneLogMaxBytes` is rotated. Reading the log is intake.ts's part.
 */
import { renameSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { errorMessage } from '../../errors.js';
import { paneLogPath } from '../../home/paths.js';
import { PaneNotFoundError } from '../../tmux/client.js';
import type { AgentContext } from '../agent-context.js';
import { claimPane, releasePane } from './pane-claim.js';

export interface Capture {
  readonly logFile: string;
  /**
   * Claim the pane (pane-claim.ts): refuse one tagged for another agent or
   * read by another live bridge, tag it, and pipe it into the log unless our
   * pipe is there already (a bridge killed with -9 leaves it open, so output
   * printed meanwhile is in the log). With `force` our own pipe is replaced
   * too: its `cat` still writes to the file it opened, which is no longer
   * the log when the log was deleted or replaced. Returns whether the pane
   * was piped now.
   */
  ensure: (force?: boolean) => Promise<boolean>;
  /** The log's inode our pipe writes into (after start or a reopen). */
  setInode: (inode: number) => void;
  readonly inode: number | undefined;
  /**
   * The log was deleted or replaced under a running bridge (the tail tells,
   * before it reads the old file to its end): pipe the pane into a new log
   * at once, so output goes on reaching the path. Output printed since the
   * deletion may have gone only to the old file, so the pane's history is
   * scanned too (blocks the reader reported before are not reported again;
   * dedup catches the rest). Runs under `serial`.
   */
  reopen: () => Promise<void>;
  /**
   * Pane logs do not grow without end: once read past `paneLogMaxBytes`
   * (and no block is held half drawn), the log is renamed aside; the tail
   * sees it replaced, the pane is piped into a new log at the path before
   * the old one is read to its end (reopen), and the old one is removed
   * once read (`rotated`). Nothing printed meanwhile is lost. Under `serial`.
   */
  maybeRotate: (readTo: number, holdsBlock: boolean) => void;
  /**
   * The tail saw the log replaced: when that was our rotation, the old log
   * was read to its end and goes now. Returns whether it was ours.
   */
  rotated: () => Promise<boolean>;
  /** End the pipe (a start that failed, or the bridge stopping). */
  release: () => Promise<boolean>;
}

export function createCapture(
  ctx: AgentContext,
  deps: {
    /** Scan the pane's history for what the new pipe missed. */
    scanHistory(): Promise<void>;
    notePaneGone(): Promise<void>;
  },
): Capture {
  const { agent, pane, tmux, paths, config, log } = ctx;
  const logFile = paneLogPath(paths, agent);
  /** The log file (inode) our pipe writes into. */
  let captureInode: number | undefined;
  /** The pane log renamed aside by a rotation, until it is read to its end. */
  let rotatedTo: string | undefined;

  async function ensure(force = false): Promise<boolean> {
    const claim = await claimPane({ tmux, pane, agent, logFile, force });
    ctx.panePid ??= claim.pid;
    if (!claim.newPipe) return false;
    await ctx.emit({
      type: 'capture.started',
      data: {
        pane,
        log: logFile,
        replacedPipe: claim.replaced !== undefined,
        ...(claim.replaced === 'ours' ? { reopened: true } : {}),
      },
    });
    return true;
  }

  return {
    logFile,
    ensure,
    setInode(inode) {
      captureInode = inode;
    },
    get inode() {
      return captureInode;
    },
    async reopen() {
      if (ctx.stopped) return;
      // Already piped into the file the path names (told twice).
      const now = await stat(logFile).catch(() => undefined);
      if (now && now.ino === captureInode) return;
      try {
        await ensure(true);
        captureInode = (await stat(logFile)).ino;
        // A rotation of our own loses nothing: the old file is read to its end.
        if (rotatedTo) return;
        ctx.current().scanPending = true;
        await ctx.saveNow();
        await deps.scanHistory();
      } catch (error) {
        await ctx.emit({
          type: 'error',
          data: { where: 'capture', message: errorMessage(error) },
        });
        if (error instanceof PaneNotFoundError)
          void deps.notePaneGone().catch(() => undefined);
        return;
      }
      await ctx.emit({
        type: 'warning',
        data: {
          message: `the pane log ${logFile} was deleted or replaced while the bridge ran; the pane is piped into a new log and reading goes on`,
        },
      });
    },
    maybeRotate(readTo, holdsBlock) {
      if (rotatedTo || readTo < config.paneLogMaxBytes) return;
      if (holdsBlock) return;
      const aside = `${logFile}.rotated`;
      try {
        renameSync(logFile, aside);
        rotatedTo = aside;
      } catch (error) {
        log.warn({ err: error }, 'could not rotate the pane log');
      }
    },
    async rotated() {
      if (!rotatedTo) return false;
      await rm(rotatedTo, { force: true });
      await ctx.emit({
        type: 'capture.rotated',
        data: { log: logFile, maxBytes: config.paneLogMaxBytes },
      });
      rotatedTo = undefined;
      return true;
    },
    release: () => releasePane({ tmux, pane, logFile }),
  };
}
