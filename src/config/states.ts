/**
 * Every state an agent can be in (SPEC §6), the one list of them: the type,
 * the status JSON's schema (state/snapshot-schema.ts) and the hook files'
 * check come from here. No zod here: `macs hook` reads it.
 */
export const AGENT_STATE_NAMES = [
  'working',
  'idle',
  'approval',
  'error',
  'dead',
  'unknown',
] as const;

export type AgentStateName = (typeof AGENT_STATE_NAMES)[number];
