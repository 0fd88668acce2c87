/**
 * The intake room: a pane's output in, request blocks out. `capture.ts`
 * claims and pipes the pane into its log; `intake.ts` reads the log onto a
 * screen reader and hands each block found to `onBlock`; on an idle
 * screen, `heuristic.ts` hands on a question asked without markers.
 */
import type { ActivityTracker } from '../../screen/activity.js';
import type { AgentContext } from '../agent-context.js';
import { createCapture, type Capture } from './capture.js';
import { raiseIdleQuestion } from './heuristic.js';
import { createIntake, type Intake } from './intake.js';

export type { Capture } from './capture.js';
export type { Intake } from './intake.js';

/** The pane's capture and the reading of its log, wired to each other. */
export function createIntakeRoom(
  ctx: AgentContext,
  deps: {
    activity: ActivityTracker;
    onBlock: Parameters<typeof createIntake>[1]['onBlock'];
    afterOutput: Parameters<typeof createIntake>[1]['afterOutput'];
    notePaneGone: () => Promise<void>;
  },
): {
  capture: Capture;
  intake: Intake;
  /** An idle screen (under `serial`): heuristic triggers, then the reader. */
  onIdleScreen: (screen: string) => Promise<void>;
} {
  const capture = createCapture(ctx, {
    scanHistory: () => intake.scanHistory(),
    notePaneGone: deps.notePaneGone,
  });
  const intake = createIntake(ctx, {
    capture,
    activity: deps.activity,
    onBlock: deps.onBlock,
    afterOutput: deps.afterOutput,
  });
  return {
    capture,
    intake,
    async onIdleScreen(screen) {
      await raiseIdleQuestion(ctx, screen, {
        onBlock: deps.onBlock,
        hides: intake.hides,
      });
      intake.onIdleScreen();
    },
  };
}
