/**
 * Incomplete requests (issue 29): a worker printed a start marker and a body
 * but no end marker. The parser holds such a block without a word (SPEC §2:
 * it is abandoned only past `maxBlockLines`/`maxBlockBytes`), so the worker
 * waited and nobody learned it had asked. Here the bridge decides, by time
 * and by the agent's state, when an open block has waited long enough:
 *
 * - the pane has been quiet for `incompleteAfterSec` (default 5) with the
 *   block open (`quiet`), or
 * - the agent's state read `idle` with the block open (`prompt`: its prompt
 *   or composer came back under the start marker, so the program is done
 *   printing), confirmed PROMPT_CONFIRM_MS later.
 *
 * Either way the block must still be open and the reader must have read the
 * pane's log to its end (an end marker already written is never taken for a
 * missing one). Then `request.incomplete` is recorded with the block's first
 * lines and what the worker must do, the state keeps the notice (status,
 * inbox), and a person is called (route/attention.ts observes the event).
 *
 * An incomplete request is no request: it has no ledger record, no inbox
 * file, no dedup entry, and cannot be answered. When its end marker comes,
 * the block is detected as usual (once) and the notice is cleared
 * (`request.incomplete-cleared`, reason `completed`); likewise when it is
 * abandoned (`abandoned`: restarted, or past a limit, then refused) or no
 * longer shown (`gone`: the screen cleared).
 */
import type { OpenBlockInfo } from '../../protocol/request-parser.js';
import type { ReaderEvent } from '../../screen/fingerprint.js';
import { conversationLines } from '../../screen/heuristics.js';
import { describeIncomplete } from '../../state/incomplete-requests.js';
import type { IncompleteRequest } from '../../state/types.js';
import type { AgentContext } from '../agent-context.js';

/** After an idle reading, an open block is shown this much later. */
export const PROMPT_CONFIRM_MS = 1_000;
/** The log not yet read to its end: look again this soon. */
const CATCH_UP_RECHECK_MS = 250;

export interface IncompleteWatch {
  /**
   * The reader has read output (or settled): clear a notice whose block
   * ended or left, and time the block still open. Under `serial`.
   */
  afterRead(found: readonly ReaderEvent[]): Promise<void>;
  /** The agent's state read `idle`. Under `serial`. */
  onIdleScreen(): void;
  stop(): void;
}

export function createIncompleteWatch(
  ctx: AgentContext,
  deps: {
    /** The block the reader's last look found open. */
    openBlock(): OpenBlockInfo | undefined;
    /** When the pane last printed (ms). */
    lastOutputAt(): number | undefined;
    /** Has the reader read the pane's log to its end? */
    caughtUp(): Promise<boolean>;
  },
): IncompleteWatch {
  const { agent, config, serial, log } = ctx;
  const quietMs = config.incompleteAfterSec * 1000;
  let timer: NodeJS.Timeout | undefined;
  /** An idle reading while this block (its start line) was open, and when. */
  let prompt: { firstLine: string; at: number } | undefined;

  const noticed = (open: OpenBlockInfo): boolean =>
    ctx.current().incomplete?.firstLine === open.firstLine;

  function schedule(ms: number): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void serial(check).catch((error: unknown) =>
        log.warn({ err: error }, 'incomplete request check failed'),
      );
    }, ms);
    timer.unref();
  }

  /** When the open block is due to be shown, from now (ms), or undefined. */
  function dueIn(open: OpenBlockInfo, now: number): number | undefined {
    const byPrompt =
      prompt?.firstLine === open.firstLine
        ? prompt.at + PROMPT_CONFIRM_MS - now
        : undefined;
    const byQuiet =
      quietMs > 0 ? (deps.lastOutputAt() ?? 0) + quietMs - now : undefined;
    if (byPrompt === undefined) return byQuiet;
    if (byQuiet === undefined) return byPrompt;
    return Math.min(byPrompt, byQuiet);
  }

  function arm(open: OpenBlockInfo): void {
    const due = dueIn(open, Date.now());
    if (due === undefined) clearTimeout(timer);
    else schedule(Math.max(0, due));
  }

  async function check(): Promise<void> {
    if (ctx.stopped) return;
    const open = deps.openBlock();
    if (!open || noticed(open)) return;
    const now = Date.now();
    const due = dueIn(open, now);
    if (due === undefined) return;
    if (due > 0) {
      schedule(due);
      return;
    }
    // A state no longer idle is no proof; the pane's quiet may still be.
    if (prompt && ctx.current().state !== 'idle') prompt = undefined;
    const byPrompt =
      prompt?.firstLine === open.firstLine &&
      prompt.at + PROMPT_CONFIRM_MS <= now;
    const byQuiet = quietMs > 0 && now - (deps.lastOutputAt() ?? 0) >= quietMs;
    if (!byPrompt && !byQuiet) {
      arm(open);
      return;
    }
    if (!(await deps.caughtUp())) {
      schedule(CATCH_UP_RECHECK_MS);
      return;
    }
    const workerId = open.attributes.id;
    // Cut by the prompt: the block's last lines are the prompt area (a
    // shell's prompt, an agent's composer), not what the worker asked.
    const head =
      byPrompt && open.lines <= open.head.length
        ? conversationLines(open.head)
        : open.head;
    const notice: IncompleteRequest = {
      since: new Date(now).toISOString(),
      reason: byPrompt ? 'prompt' : 'quiet',
      firstLine: open.firstLine,
      attributes: open.attributes,
      head,
      lines: head === open.head ? open.lines : head.length,
      ...(workerId !== undefined ? { requestId: `${agent}-${workerId}` } : {}),
    };
    ctx.current().incomplete = notice;
    await ctx.saveNow();
    await ctx.emit({
      type: 'request.incomplete',
      data: {
        reason: notice.reason,
        firstLine: notice.firstLine,
        head: notice.head,
        lines: notice.lines,
        ...(notice.requestId ? { willBe: notice.requestId } : {}),
        message: describeIncomplete(agent, notice),
        pane: ctx.pane,
      },
    });
  }

  function clearReason(
    found: readonly ReaderEvent[],
  ): 'completed' | 'abandoned' | 'gone' {
    if (found.some((e) => e.type === 'request' || e.type === 'request-again'))
      return 'completed';
    if (found.some((e) => e.type === 'malformed')) return 'abandoned';
    return 'gone';
  }

  return {
    async afterRead(found) {
      const s = ctx.current();
      const open = deps.openBlock();
      const notice = s.incomplete;
      if (notice && open?.firstLine !== notice.firstLine) {
        delete s.incomplete;
        await ctx.saveNow();
        await ctx.emit({
          type: 'request.incomplete-cleared',
          data: {
            reason: clearReason(found),
            firstLine: notice.firstLine,
            since: notice.since,
          },
        });
      }
      if (!open) {
        prompt = undefined;
        clearTimeout(timer);
        return;
      }
      if (s.incomplete) return;
      arm(open);
    },
    onIdleScreen() {
      if (ctx.stopped) return;
      const open = deps.openBlock();
      if (!open || noticed(open)) return;
      // Timed from the first idle reading of this block: later readings
      // (every few seconds) do not push it back.
      if (prompt?.firstLine !== open.firstLine)
        prompt = { firstLine: open.firstLine, at: Date.now() };
      arm(open);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
