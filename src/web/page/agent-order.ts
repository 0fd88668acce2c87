/**
 * Pure: the order and names of the page's agent cards. A Claude Code
 * teammate (docs/hooks.md "Agent teams") is named `<lead>/<teammate>` and
 * shown right after its lead, as `macs status` shows it; a lead's group
 * comes first when any of it waits for a person, then the groups by the
 * lead's name.
 */
import { compareAgentNames } from '../../state/agent-order.js';
import type { AgentSnapshot } from '../../state/snapshot-schema.js';

/** The name on an agent's card: a teammate's `<lead>/<teammate>`. */
export function cardName(a: AgentSnapshot): string {
  return a.teammate?.shownAs ?? a.name;
}

/** The agents in the order of their cards (see the module comment). */
export function orderAgentCards(
  agents: readonly AgentSnapshot[],
): AgentSnapshot[] {
  const names = new Set(agents.map((a) => a.name));
  const leadOf = (a: AgentSnapshot) =>
    a.teammate && names.has(a.teammate.lead) ? a.teammate.lead : undefined;
  const byName = (x: AgentSnapshot, y: AgentSnapshot) =>
    compareAgentNames(x.name, y.name);
  const groups = agents
    .filter((a) => !leadOf(a))
    .map((lead) => [
      lead,
      ...agents.filter((t) => leadOf(t) === lead.name).sort(byName),
    ]);
  const waits = (group: AgentSnapshot[]) =>
    group.some((a) => a.counts.waitingForPerson > 0);
  groups.sort(
    (x, y) =>
      Number(waits(y)) - Number(waits(x)) ||
      compareAgentNames(x[0]?.name ?? '', y[0]?.name ?? ''),
  );
  return groups.flat();
}
