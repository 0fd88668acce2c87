/**
 * Answers arriving for this agent's requests (from any backend, or `macs
 * dismiss`): taken only for an open request that has none yet, split into
 * instructions and notes, recorded with who answered (and, for an approval,
 * who decided), then handed on: a hook's approval to its decision file,
 * a worker's answer to delivery, an empty one straight to the archive.
 */
import type { AnswerVerdict, BackendAnswer } from '../../backends/types.js';
import { DISMISS_SUFFIX } from '../../backends/outbox-names.js';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { deciderOf, parseApprovalAnswer } from '../../protocol/approval.js';
import { splitResponse } from '../../protocol/response.js';
import { grantAllowance } from '../../state/denials.js';
import { isUntyped } from '../../state/ledger.js';
import { takeStep } from '../../state/take-step.js';
import { takeAnswerBy } from '../../state/outbox.js';
import { isTypedAnswer, type RequestRecord } from '../../state/types.js';
import type { AgentContext } from '../agent-context.js';
import { removeRequestFiles } from '../requests/archive.js';
import { checkOrigin } from '../requests/check-origin.js';
import type { RequestSteps } from '../requests/request-steps.js';

export interface Answers {
  /** Hand an answer to this agent's request (backends call this). */
  onAnswer: (answer: BackendAnswer) => Promise<AnswerVerdict>;
  /**
   * Right before typing: is the request still open, and is the agent as it
   * runs now the one that asked (requests/check-origin.ts checkOrigin: session,
   * pane, program, tag)? One that is not is ended. Not under `serial` (the
   * caller is not).
   */
  stillAsked: (record: RequestRecord) => Promise<boolean>;
}

export function createAnswers(
  ctx: AgentContext,
  deps: {
    steps: RequestSteps;
    /** A hook's approval: its decision file (hook-approvals.ts). */
    decideByHook(record: RequestRecord): Promise<void>;
    /** A worker's answer: type it (delivery.ts). */
    deliver(record: RequestRecord): void;
  },
): Answers {
  const { pane, paths, config, tmux, serial } = ctx;
  const { steps } = deps;

  /**
   * `macs dismiss`: end a request without an answer, unless typing has
   * begun (then it is too late: it is delivered or reported as usual).
   * Runs under `serial`.
   */
  async function dismiss(
    record: RequestRecord,
    by: { reason: string; by: string },
  ): Promise<AnswerVerdict> {
    if (!isUntyped(record)) {
      await ctx.emit({
        type: 'warning',
        requestId: record.id,
        data: {
          message: `not dismissed: typing its answer had begun (stage ${record.stage})`,
        },
      });
      await rm(path.join(paths.outbox, `${record.id}${DISMISS_SUFFIX}`), {
        force: true,
      });
      return 'already-answered';
    }
    await steps.closeUnanswered(
      record,
      'dismissed',
      by.reason || 'dismissed',
      by.by || 'person',
    );
    return 'accepted';
  }

  /**
   * An appeal's answer: overturned (its first word allows), the denied call
   * it names may pass once (state/denials.ts); else the denial stands.
   */
  async function settleAppeal(
    record: RequestRecord,
    said: ReturnType<typeof parseApprovalAnswer>,
  ): Promise<void> {
    const call = record.attributes.call;
    const overturned = said.recognized && said.decision === 'allow';
    if (overturned && call)
      await grantAllowance(paths, ctx.agent, {
        fingerprint: call,
        appeal: record.id,
        reason: said.reason.slice(0, 500),
        at: new Date().toISOString(),
      });
    await ctx.emit({
      type: overturned && call ? 'appeal.overturned' : 'appeal.upheld',
      requestId: record.id,
      data: {
        ...(call ? { call } : {}),
        ...(record.attributes.tool ? { tool: record.attributes.tool } : {}),
        ...(record.decision
          ? { decidedBy: record.decision.decidedBy, via: record.decision.via }
          : {}),
      },
    });
  }

  async function take(
    record: RequestRecord,
    answer: BackendAnswer,
  ): Promise<AnswerVerdict> {
    const parsed = splitResponse(answer.text, { noSplit: config.noSplit });
    const now = new Date().toISOString();
    // The tool call behind an outbox answer (macs mcp), else a person's.
    const by = answer.source.startsWith('outbox')
      ? await takeAnswerBy(paths, record.id)
      : undefined;
    // An approval's and an appeal's decider is recorded with the decision;
    // any answer a rule gave (`rule:non-interactive`) says so in its event.
    const decides = record.type === 'approval' || record.type === 'appeal';
    const decider =
      decides || answer.source.startsWith('rule:')
        ? deciderOf(answer.source, by)
        : undefined;
    // (A hook's or a screen's approval records its decision once applied.)
    // A worker's own approval request: its answer is typed, and the
    // decision is what its first word says (docs/backends.md).
    const said =
      decides && decider && isTypedAnswer(record) && parsed.instructions.trim()
        ? parseApprovalAnswer(parsed.instructions)
        : undefined;
    // The stage the ledger gives an answer: `answered-empty` when nothing
    // is left to type.
    const empty = !parsed.instructions.trim();
    await takeStep(
      ctx,
      record,
      {
        type: 'answered',
        at: now,
        response: {
          instructions: parsed.instructions,
          notes: parsed.notes,
          source: answer.source,
          ...(by ? { by } : {}),
          receivedAt: now,
          raw: answer.text,
        },
        ...(decider && said
          ? {
              decision: {
                ...(said.recognized ? { decision: said.decision } : {}),
                decidedBy: decider.decidedBy,
                via: decider.via,
                reason: said.reason,
                at: now,
              },
            }
          : {}),
      },
      {
        type: empty ? 'request.answered-empty' : 'request.answered',
        data: {
          source: answer.source,
          ...(by ? { by } : {}),
          ...(decider
            ? { decidedBy: decider.decidedBy, via: decider.via }
            : {}),
          chars: parsed.instructions.length,
          notesChars: parsed.notes.length,
          ...(parsed.notes ? { notes: parsed.notes.slice(0, 2000) } : {}),
        },
      },
    );
    if (record.type === 'appeal' && said) await settleAppeal(record, said);
    // An approval a hook asked for is answered with a decision file, never typed.
    if (record.origin === 'hook') await deps.decideByHook(record);
    else if (record.stage === 'answered') deps.deliver(record);
    else await steps.finish(record);
    return 'accepted';
  }

  return {
    onAnswer(answer) {
      return serial(async () => {
        // Still starting, its state not read: not taken now (an outbox file
        // stays where it is), as for an agent with no supervisor.
        if (!ctx.hasState()) return 'already-answered';
        const s = ctx.current();
        const record = s.requests[answer.id];
        if (!record) {
          if (s.recent.some((r) => r.id === answer.id)) {
            // A leftover answer file of a request already archived (a crash
            // between the archive and the clean-up): finish the clean-up.
            await removeRequestFiles(paths, answer.id);
            return 'already-answered';
          }
          return 'unknown-request';
        }
        if (answer.dismiss) return dismiss(record, answer.dismiss);
        if (record.stage !== 'routed' && record.stage !== 'detected')
          return 'already-answered';
        return take(record, answer);
      });
    },

    async stillAsked(record) {
      if (
        ctx.current().requests[record.id] !== record ||
        record.stage !== 'answered'
      )
        return false;
      const info = await tmux.paneInfo(pane).catch(() => undefined);
      const origin = checkOrigin(record, ctx.incarnation(), info ?? 'gone');
      switch (origin.type) {
        case 'asker':
          return true;
        case 'gone':
          return false;
        case 'retagged':
          await serial(() =>
            steps.closeUnanswered(record, 'expired', origin.reason, 'bridge'),
          );
          return false;
        case 'restarted':
          await serial(() => steps.onProgramRestarted(origin.pid));
          return false;
        case 'elsewhere':
          await serial(() => steps.endForeign(record));
          return false;
        default: {
          const never: never = origin;
          throw new Error(`unexpected origin ${JSON.stringify(never)}`);
        }
      }
    },
  };
}
