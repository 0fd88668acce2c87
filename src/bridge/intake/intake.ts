/**
 * Intake: the pane's output, from the log the capture writes, drawn on a
 * screen reader (screen/reader.ts) that finds request blocks as a person
 * would see them, and the pane's history scanned once when a pipe is new.
 * What it finds leaves as values: a detected request (attributes, body,
 * whether the output hid part of it) for requests/block-request.ts, or a malformed block
 * recorded here. It also keeps the offset the bridge resumes from.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createHiddenTextTracker } from '../../protocol/hidden-text.js';
import type { BridgeEvent } from '../../protocol/request-parser.js';
import type { ActivityTracker } from '../../screen/activity.js';
import type { ReaderEvent } from '../../screen/fingerprint.js';
import { createScreenReader, type ScreenReader } from '../../screen/reader.js';
import { LIVE_STABLE_MS } from '../../screen/live.js';
import type { PaneInfo } from '../../tmux/client.js';
import type { AgentContext } from '../agent-context.js';
import { STATE_SETTLE_MS } from '../agent/agent-state.js';
import type { DetectedBlock } from '../requests/block-request.js';
import type { Capture } from './capture.js';
import { createIncompleteWatch } from './incomplete-watch.js';
import { createLogTail, type LogTail, type TailEvent } from './tail.js';

/**
 * Screen reading (src/screen/reader.ts, docs/screen-reading.md): a block the
 * reader holds (not yet drawn to the end) is reported after this much quiet.
 */
const READER_SETTLE_MS = 8;
/** The pane's size is checked at most this often on a redraw hint. */
const SIZE_CHECK_MIN_MS = 100;
/** A restarted bridge redraws its screen from this much of the log. */
const REPLAY_MAX_BYTES = 1024 * 1024;

export interface Intake {
  /** Open the reader (redrawing a resumed bridge's screen from the log). */
  openReader: (resumed: boolean) => Promise<void>;
  /**
   * A pipe only sees output printed after it opens. When the bridge starts
   * watching a pane for the first time, what the pane already shows (its
   * history, as tmux renders it, wrapped lines joined) is scanned once, so a
   * worker that asked before the bridge came up is still heard. The pipe is
   * opened first, so nothing falls between; a request seen both ways is a
   * duplicate and dropped. Runs under `serial`.
   */
  scanHistory: () => Promise<void>;
  /** Follow the log from `offset`. */
  startTail: (offset: number) => Promise<void>;
  /** Keep the reader at the pane's size. Runs under `serial`. */
  syncSize: (info: PaneInfo) => void;
  holdsBlock: () => boolean;
  /**
   * The agent's state read `idle`: a block still open was cut by its prompt
   * and is shown as an incomplete request soon (incomplete-watch.ts).
   */
  onIdleScreen: () => void;
  /** The output hid part of this text (concealed, or invisible). */
  hides: (text: string) => boolean;
  stop: () => Promise<void>;
  /** After stop, under `serial`: free the reader. */
  dispose: () => void;
}

/**
 * A block abandoned for its size is a request refused: the worker waits for
 * an answer that will not come, so a person is called about it
 * (bridge/attention.ts) and told why. A block restarted by a new start
 * marker is not: the worker asked again.
 */
export function refusal(
  agent: string,
  item: Extract<BridgeEvent, { type: 'malformed' }>,
  limits: { maxBlockLines: number; maxBlockBytes: number },
): { refused: true; message: string } | Record<string, never> {
  if (item.reason === 'restarted') return {};
  const over =
    item.reason === 'max-lines'
      ? `more than ${limits.maxBlockLines} lines (maxBlockLines)`
      : `more than ${limits.maxBlockBytes} bytes (maxBlockBytes)`;
  return {
    refused: true,
    message: `${agent}'s request was refused: it ran to ${over} without its end marker, so it is not in the inbox and ${agent} gets no answer; tell it with macs send ${agent} "…"`,
  };
}

export function createIntake(
  ctx: AgentContext,
  deps: {
    capture: Capture;
    activity: ActivityTracker;
    /** A request block: record it. True when the state must be saved now. */
    onBlock(block: DetectedBlock): Promise<boolean>;
    /** Output came: the agent's state is read soon (agent-state.ts). */
    afterOutput(burst: boolean): void;
  },
): Intake {
  const { pane, tmux, config, serial, log } = ctx;
  const { capture, activity } = deps;
  let reader: ScreenReader | undefined;
  let tail: LogTail | undefined;
  let readerSettleTimer: NodeJS.Timeout | undefined;
  let lastSizeCheckAt = 0;
  /** Where the output drawn on the reader ends in the log. */
  let lastDataEnd = 0;
  /**
   * Text the output hid (concealed, or in its background's colour): a person
   * sees blanks where the answerer would read words. A request whose body
   * holds such text is flagged.
   */
  const hiddenText = createHiddenTextTracker();
  /** Blocks whose end marker does not come: shown to a person (issue 29). */
  const incomplete = createIncompleteWatch(ctx, {
    openBlock: () => reader?.openBlock(),
    lastOutputAt: () => activity.lastOutputAt(),
    caughtUp: async () => {
      const info = await stat(capture.logFile).catch(() => undefined);
      return info === undefined || info.size <= lastDataEnd;
    },
  });

  /** The blocks reported, saved with the session whose programs printed them. */
  function rememberSeen(r: ScreenReader): void {
    const s = ctx.current();
    s.screenSeen = r.seen();
    if (ctx.session === undefined) delete s.screenSession;
    else s.screenSession = ctx.session;
  }

  function currentReader(): ScreenReader {
    if (!reader) throw new Error(`supervisor for ${ctx.agent} is not started`);
    return reader;
  }

  function syncSize(info: PaneInfo): void {
    lastSizeCheckAt = Date.now();
    if (reader && (info.width !== reader.cols || info.height !== reader.rows))
      reader.resize(info.width, info.height);
  }

  /** Returns true when the state changed in a way that must be saved now. */
  async function handleParsed(item: ReaderEvent): Promise<boolean> {
    switch (item.type) {
      case 'attribute-dropped':
        await ctx.emit({
          type: 'request.attribute-dropped',
          data: {
            key: item.key.slice(0, 64),
            value: item.value.slice(0, 80),
            reason: item.reason,
          },
        });
        return false;
      case 'malformed':
        ctx.current().counters.malformed += 1;
        await ctx.emit({
          type: 'request.malformed',
          data: {
            reason: item.reason,
            lines: item.lines,
            bytes: item.bytes,
            firstLine: item.firstLine.slice(0, 200),
            ...refusal(ctx.agent, item, config),
            pane,
          },
        });
        return true;
      case 'request':
        return deps.onBlock({
          attributes: item.attributes,
          body: item.body,
          concealed: hiddenText.hides(item.body),
        });
      case 'request-again':
        return deps.onBlock({
          attributes: item.attributes,
          body: item.body,
          concealed: hiddenText.hides(item.body),
          again: item.copy,
        });
      default: {
        const never: never = item;
        throw new Error(`unexpected parser event ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * Draw output on the reader. Where the output may start a redraw for a new
   * pane size (reader.sizeHint), the pane's size is read first, so the
   * redraw is drawn at the size it was made for. Runs under `serial`.
   */
  async function readOutput(text: string): Promise<ReaderEvent[]> {
    const r = currentReader();
    const hint = r.sizeHint(text);
    if (hint < 0 || Date.now() - lastSizeCheckAt < SIZE_CHECK_MIN_MS)
      return r.write(text);
    const found = await r.write(text.slice(0, hint));
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    lastSizeCheckAt = Date.now();
    if (info && !info.dead) syncSize(info);
    return [...found, ...(await r.write(text.slice(hint)))];
  }

  /** Handle what the reader found; true when the state must be saved now. */
  async function handleFound(found: ReaderEvent[]): Promise<boolean> {
    let changed = false;
    for (const item of found) changed = (await handleParsed(item)) || changed;
    if (found.length > 0) rememberSeen(currentReader());
    // A block the reader still holds is not behind the saved offset yet:
    // a restart reads that output again rather than lose the block.
    if (!currentReader().hasHeld()) ctx.current().logOffset = lastDataEnd;
    await incomplete.afterRead(found);
    return changed;
  }

  /** After output: settle the reader soon; the state is read too. */
  function afterOutput(burst: boolean): void {
    if (ctx.stopped) return;
    // The reader reports held blocks, and ends its care after a resize,
    // once output has been quiet for a moment.
    clearTimeout(readerSettleTimer);
    const settleReader = (): void => {
      void serial(async () => {
        if (reader && (await handleFound(reader.settle()))) await ctx.saveNow();
        // A block drawn by a full-screen program is reported once it has
        // stayed the same a moment (screen/live.ts): look again then.
        if (!ctx.stopped && reader?.hasHeld()) {
          clearTimeout(readerSettleTimer);
          readerSettleTimer = setTimeout(settleReader, LIVE_STABLE_MS);
        }
      }).catch((error: unknown) =>
        log.error({ err: error }, 'screen settle failed'),
      );
    };
    readerSettleTimer = setTimeout(settleReader, READER_SETTLE_MS);
    deps.afterOutput(burst);
  }

  async function onTail(event: TailEvent): Promise<void> {
    await serial(async () => {
      // Stopping: output still queued is read by the next start, from the
      // saved offset; a signal is honoured now, not after a backlog.
      if (ctx.stopped) return;
      const s = ctx.current();
      switch (event.type) {
        case 'data': {
          hiddenText.feed(event.text);
          const now = Date.now();
          const burst = now - (activity.lastOutputAt() ?? 0) > STATE_SETTLE_MS;
          activity.onOutput(now);
          const found = await readOutput(event.text);
          lastDataEnd = event.end;
          if (await handleFound(found)) await ctx.saveNow();
          else ctx.saveLater();
          afterOutput(burst);
          capture.maybeRotate(event.end, currentReader().hasHeld());
          return;
        }
        case 'truncated':
        case 'replaced': {
          // The screen is the pane's, not the file's: the reader carries on.
          lastDataEnd = 0;
          s.logOffset = 0;
          s.logInode = await stat(capture.logFile)
            .then((i) => i.ino)
            .catch(() => undefined);
          await ctx.saveNow();
          // Our rotation: the old log was read to its end; it goes.
          if (event.type === 'replaced' && (await capture.rotated())) return;
          await ctx.emit({
            type:
              event.type === 'truncated'
                ? 'capture.truncated'
                : 'capture.replaced',
            data:
              event.type === 'truncated'
                ? { previousOffset: event.previousOffset, size: event.size }
                : {},
          });
          return;
        }
        case 'error':
          await ctx.emit({
            type: 'error',
            data: { where: 'tail', message: event.error.message },
          });
          return;
        default: {
          const never: never = event;
          throw new Error(`unexpected tail event ${JSON.stringify(never)}`);
        }
      }
    });
  }

  return {
    /**
     * The reader starts with an empty screen. A restarted bridge first
     * redraws it from the log before its saved offset (at most
     * REPLAY_MAX_BYTES): blocks found there were read by the bridge before
     * and are remembered, never reported (docs/screen-reading.md).
     */
    async openReader(resumed) {
      const s = ctx.current();
      const info = await tmux.paneInfo(pane);
      const r = createScreenReader({
        cols: info.width,
        rows: info.height,
        maxBlockLines: config.maxBlockLines,
        maxBlockBytes: config.maxBlockBytes,
        // Another session's programs printed those blocks, not this one's.
        seen: s.screenSession === ctx.session ? (s.screenSeen ?? []) : [],
      });
      reader = r;
      lastSizeCheckAt = Date.now();
      lastDataEnd = s.logOffset;
      if (resumed && s.logOffset > 0) {
        const from = Math.max(0, s.logOffset - REPLAY_MAX_BYTES);
        const handle = await open(
          capture.logFile,
          constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0),
        );
        try {
          const bytes = Buffer.alloc(s.logOffset - from);
          const { bytesRead } = await handle.read(bytes, 0, bytes.length, from);
          // Start on a character boundary.
          let skip = 0;
          while (
            skip < Math.min(3, bytesRead) &&
            ((bytes[skip] ?? 0) & 0xc0) === 0x80
          )
            skip += 1;
          await r.replay(
            new TextDecoder().decode(bytes.subarray(skip, bytesRead)),
          );
        } finally {
          await handle.close();
        }
      }
      // A program that was on the alternate screen before the log began.
      if (info.alternateOn && r.buffer !== 'alternate')
        await r.replay('\x1b[?1049h');
    },

    async scanHistory() {
      const history = await tmux.capturePane(pane, { start: '-', join: true });
      // The same with its colours: text the pane hides is known before the
      // requests found here are recorded (then the pen is reset).
      const coloured = await tmux
        .capturePane(pane, { start: '-', join: true, escapes: true })
        .catch(() => '');
      hiddenText.feed(`${coloured}\x1b[0m`);
      const r = currentReader();
      // Through the reader, so a block seen here is not reported again when
      // the program redraws it.
      const found = r.scanLines(history.replace(/\n$/, '').split('\n'));
      for (const item of found) await handleParsed(item);
      // Saved as seen only once each is recorded: a bridge killed half way
      // through must find the rest again, not skip them as seen.
      if (found.length > 0) rememberSeen(r);
      delete ctx.current().scanPending;
      await ctx.saveNow();
    },

    async startTail(offset) {
      // A notice kept from before a restart: its block open still, or not.
      await serial(() => incomplete.afterRead([]));
      tail = createLogTail({
        file: capture.logFile,
        offset,
        onEvent: onTail,
        backstopMs: config.backstopMs,
        beforeLeave: () => serial(() => capture.reopen()),
      });
      await tail.start();
    },

    syncSize,
    holdsBlock: () => reader?.hasHeld() ?? false,
    onIdleScreen: () => incomplete.onIdleScreen(),
    hides: (text) => hiddenText.hides(text),

    async stop() {
      clearTimeout(readerSettleTimer);
      incomplete.stop();
      await tail?.stop();
    },

    dispose() {
      reader?.dispose();
      reader = undefined;
    },
  };
}
