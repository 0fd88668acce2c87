/**
 * The agent room: the agent's state, from its screen, its output's activity
 * and its hooks (`agent-state.ts`, `hook-state.ts`), and the link to what
 * `macs hook` leaves (`hook-link.ts`: observations, and what each look found,
 * `HookSeen`, handed on for the answers and approvals rooms to act on).
 */
import type { AgentContext } from '../agent-context.js';
import {
  createAgentStateReader,
  type AgentStateReader,
} from './agent-state.js';
import {
  createHookLink,
  type HookLink,
  type HookLinkHost,
} from './hook-link.js';

export { ACTIVITY_QUIET_MS } from './agent-state.js';
export type { AgentStateReader } from './agent-state.js';
export type { HookSeen, Observation } from './types.js';
export type { HookLink } from './hook-link.js';

type ReaderDeps = Parameters<typeof createAgentStateReader>[1];

/** The agent's hook link and its state reader, wired to each other. */
export function createAgentRoom(
  ctx: AgentContext,
  deps: Omit<ReaderDeps, 'resolveState'> & {
    /** What a look at the hook files found, handed on. */
    hookSeen: HookLinkHost['hookSeen'];
  },
): { hooks: HookLink; stateReader: AgentStateReader } {
  const { hookSeen, ...readerDeps } = deps;
  // Agent hooks (docs/hooks.md): their state wins over the screen;
  // Stop-hook deliveries, confirmations and approvals arrive as files.
  const hooks = createHookLink({
    agent: ctx.agent,
    paths: ctx.paths,
    config: ctx.config,
    preset: ctx.profile.preset,
    log: ctx.log,
    serial: ctx.serial,
    current: ctx.current,
    emit: ctx.emit,
    saveNow: ctx.saveNow,
    hookSeen,
    refreshState: () => stateReader.readState(),
  });
  const stateReader = createAgentStateReader(ctx, {
    ...readerDeps,
    resolveState: hooks.resolveState,
  });
  return { hooks, stateReader };
}
