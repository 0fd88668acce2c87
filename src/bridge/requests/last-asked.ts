/**
 * The last request block the program now in the pane printed, raised or not
 * (a repeat): a program that asks knows the protocol, and may be waiting
 * for an answer, so its first message is not typed (fleet/prompt-once.ts).
 * Forgotten when another program runs in the pane.
 */
import type { AgentContext } from '../agent-context.js';

export interface LastAsked {
  /** The request id the block's own id gives (none without one). */
  requestId?: string;
}

export function createLastAsked(ctx: Pick<AgentContext, 'agent' | 'panePid'>): {
  note: (block: { attributes: Record<string, string> }) => void;
  get: () => LastAsked | undefined;
} {
  let last: { asked: LastAsked; pid: number | undefined } | undefined;
  return {
    note(block) {
      const id = block.attributes.id;
      last = {
        asked: id === undefined ? {} : { requestId: `${ctx.agent}-${id}` },
        pid: ctx.panePid,
      };
    },
    get: () =>
      last !== undefined && last.pid === ctx.panePid ? last.asked : undefined,
  };
}
