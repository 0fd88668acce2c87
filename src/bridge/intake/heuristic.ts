/**
 * Heuristic triggers (SPEC §2, screen/heuristics.ts) on an idle screen,
 * when turned on: a new conversation that asks for a decision is a detected
 * block of `type=heuristic`, handed on like a marked block; the same one
 * never twice.
 */
import { cleanScreenLines } from '../../screen/classify.js';
import { findHeuristic } from '../../screen/heuristics.js';
import type { AgentContext } from '../agent-context.js';
import type { DetectedBlock } from '../requests/block-request.js';

/** Runs under `serial`, as the state reading that found the screen idle. */
export async function raiseIdleQuestion(
  ctx: AgentContext,
  screen: string,
  deps: {
    /** A block found: raise it (requests/block-request.ts); true when it must be saved. */
    onBlock(block: DetectedBlock): Promise<boolean>;
    /** The output hid part of this text (intake.ts). */
    hides(text: string): boolean;
  },
): Promise<void> {
  const { config } = ctx;
  if (!config.heuristics) return;
  const s = ctx.current();
  const triggers = config.heuristicTriggers;
  const match = findHeuristic(cleanScreenLines(screen), 'idle', {
    lines: config.heuristicLines,
    ...(triggers?.question === undefined
      ? {}
      : { question: triggers.question }),
    ...(triggers?.ask ? { ask: triggers.ask } : {}),
    ...(triggers?.done ? { done: triggers.done } : {}),
  });
  if (!match || match.key === s.heuristicKey) return;
  s.heuristicKey = match.key;
  await deps.onBlock({
    attributes: { type: 'heuristic', trigger: match.trigger },
    body: match.body,
    concealed: deps.hides(match.body),
  });
  await ctx.saveNow();
}
