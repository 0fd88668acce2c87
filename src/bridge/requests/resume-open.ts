/**
 * A bridge restarted (or started on a state rebuilt after a crash) carries
 * every open request on from the stage it was saved in, never typing an
 * answer twice: `detected`/`routed` are routed again (idempotent),
 * `answered` is delivered, `pasted` gets its submit key unless the composer
 * shows it pressed already, `delivering` is submitted only if its text is
 * still in the composer, and finished ones are archived. A request asked
 * in another session, pane or program is ended, never answered here.
 */
import { errorMessage } from '../../errors.js';
import type { LoadStateResult } from '../../state/store.js';
import {
  isFinalStage,
  isOpenStage,
  type RequestRecord,
} from '../../state/types.js';
import type { AgentContext } from '../agent-context.js';
import { removeRequestFiles } from './archive.js';
import { composerHolds } from '../../typist/pane-composer.js';
import type { RequestSteps } from './request-steps.js';
import { isDialogApproval } from './check-origin.js';

/**
 * The state file could not be read: it was moved aside and the state
 * rebuilt from the event log (state/rebuild.ts). The warning that says so,
 * naming the file.
 */
export function corruptStateWarning(
  loaded: Extract<LoadStateResult, { type: 'corrupt' }>,
): { message: string; data: Record<string, unknown> } {
  const summary = loaded.rebuilt;
  const carried = summary
    ? Object.values(summary.resume).reduce((n, ids) => n + ids.length, 0)
    : 0;
  const message = summary
    ? `state file was unreadable (${loaded.error}); moved to ${loaded.movedTo} and rebuilt from the event log: ${String(carried)} request(s) carried on, ${String(summary.reanswer.length)} answer(s) taken again from their backend, ${String(summary.reread.length)} request(s) read again from the pane log, reading from offset ${String(summary.logOffset)}`
    : `state file was unreadable (${loaded.error}); moved to ${loaded.movedTo}; the event log could not be read (${loaded.rebuildError ?? 'unknown error'}), starting fresh`;
  return {
    message,
    data: {
      movedTo: loaded.movedTo,
      error: loaded.error,
      ...(summary ? { rebuilt: summary } : {}),
    },
  };
}

/**
 * Carry the open requests on (see the module comment). Runs under `serial`.
 * Returns the requests answered before the restart, oldest first, for the
 * caller to hand to delivery.
 */
export async function resumeRequests(
  ctx: AgentContext,
  deps: {
    steps: RequestSteps;
    route(record: RequestRecord): Promise<void>;
  },
): Promise<RequestRecord[]> {
  const { pane, tmux, paths, profile } = ctx;
  const { steps } = deps;

  /**
   * A bridge killed between the paste and the submit key leaves the answer
   * in the worker's composer: pressing the submit key completes that one
   * delivery.
   */
  const submitPasted = async (
    record: RequestRecord,
    method: 'submit-after-restart' | 'typed-before-restart',
  ): Promise<void> => {
    try {
      await tmux.sendKey(pane, profile.rules.submitKey);
    } catch (error) {
      await ctx.emit({
        type: 'error',
        requestId: record.id,
        data: { where: 'resume', message: errorMessage(error) },
      });
      return;
    }
    await steps.recordResumedDelivery(record, method);
  };
  const inComposer = (record: RequestRecord) =>
    composerHolds(tmux, pane, record.response?.instructions ?? '');

  const toDeliver: RequestRecord[] = [];
  const s = ctx.current();
  const open = Object.values(s.requests).sort((a, b) =>
    a.detectedAt.localeCompare(b.detectedAt),
  );
  for (const record of open) {
    // Asked in another session, pane or program: never answered here.
    if (isOpenStage(record.stage) && (await steps.endForeign(record))) continue;
    // A dialog's keys may have been pressed before the restart: never
    // pressed again, and nothing is ever typed for it.
    if (
      isDialogApproval(record) &&
      (record.stage === 'delivering' || record.stage === 'pasted')
    ) {
      await steps.recordUnconfirmed(
        record,
        'the bridge stopped while applying this decision to the dialog; its keys are not pressed again',
      );
      await steps.finish(record);
      continue;
    }
    // Finished before the restart (the archive may be missing): archived.
    if (isFinalStage(record.stage)) {
      await steps.finish(record);
      continue;
    }
    switch (record.stage) {
      case 'detected':
      case 'routed':
        // Re-submitting is idempotent for the file backend and restores missing inbox files.
        await deps.route(record);
        break;
      case 'answered':
        toDeliver.push(record);
        break;
      case 'pasted':
        // The text is in the worker's composer; only the submit key is
        // missing, unless the bridge died just after pressing it: then
        // the composer tells whether the text is still waiting there.
        if (record.submittingAt === undefined || (await inComposer(record)))
          await submitPasted(record, 'submit-after-restart');
        else
          await steps.recordResumedDelivery(record, 'submitted-before-restart');
        break;
      case 'delivering':
        // The bridge died while typing. Text waiting in the composer is
        // submitted (the key was never pressed in this stage), so it is
        // not left there to run into the next answer; otherwise it is not
        // typed again: it may or may not have arrived (at most once).
        if (await inComposer(record)) {
          await submitPasted(record, 'typed-before-restart');
          break;
        }
        await steps.recordUnconfirmed(
          record,
          'the bridge stopped while typing this answer; not re-sent (delivery is at most once)',
        );
        await steps.finish(record);
        break;
      default: {
        const never: never = record.stage;
        throw new Error(`unexpected stage ${String(never)}`);
      }
    }
  }
  for (const recent of s.recent) await removeRequestFiles(paths, recent.id);
  return toDeliver;
}
