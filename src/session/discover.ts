import { AgentError, assertNever } from '../errors.js';
import type { HomePaths } from '../state/paths.js';
import type { PaneInfo, TmuxClient } from '../tmux/client.js';
import { readPin } from './record.js';

/** Which rule found an agent's pane (SPEC §5, in this order). */
export type DiscoveryRule = 'pinned' | 'tag' | 'title' | 'command';

export interface DiscoveryInput {
  agent: string;
  panes: readonly PaneInfo[];
  /** The pane pinned with `macs target`, if any. */
  pinned?: string;
  /** The preset's program (`#{pane_current_command}`); empty or absent skips that rule. */
  program?: string;
}

export type DiscoveryResult =
  | { type: 'found'; pane: string; rule: DiscoveryRule }
  | { type: 'ambiguous'; rule: DiscoveryRule; candidates: PaneInfo[] }
  | { type: 'none'; pinnedMissing?: string };

const NAME_CHAR = /[A-Za-z0-9._-]/;

/**
 * Does `text` contain `name` as a whole word? `worker-1` is in
 * "macs worker-1" but not in "worker-10": the characters around it must not
 * be name characters.
 */
export function containsName(text: string, name: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at < 0) return false;
    const before = at > 0 ? (text[at - 1] ?? '') : '';
    const after = text[at + name.length] ?? '';
    if (!NAME_CHAR.test(before) && !NAME_CHAR.test(after)) return true;
    from = at + 1;
  }
}

/**
 * Pure pane discovery: a pinned pane (when it still exists), then the one
 * pane tagged `@macs_agent=<name>`, then the one live pane whose window name
 * or pane title contains the name, then the one live pane running the
 * preset's program. Several panes at the first rule that matches any is
 * ambiguous; a later rule is never used to break the tie.
 */
export function choosePane(input: DiscoveryInput): DiscoveryResult {
  const { agent, panes, pinned, program } = input;
  if (pinned) {
    if (panes.some((p) => p.id === pinned))
      return { type: 'found', pane: pinned, rule: 'pinned' };
  }
  const live = panes.filter((p) => !p.dead);
  const rules: [DiscoveryRule, PaneInfo[]][] = [
    ['tag', panes.filter((p) => p.agentTag === agent)],
    [
      'title',
      live.filter(
        (p) =>
          containsName(p.windowName, agent) || containsName(p.title, agent),
      ),
    ],
    [
      'command',
      program ? live.filter((p) => p.currentCommand === program) : [],
    ],
  ];
  for (const [rule, matches] of rules) {
    if (matches.length === 1 && matches[0])
      return { type: 'found', pane: matches[0].id, rule };
    if (matches.length > 1)
      return { type: 'ambiguous', rule, candidates: matches };
  }
  return pinned ? { type: 'none', pinnedMissing: pinned } : { type: 'none' };
}

/** One candidate as a person reads it in an error. */
export function describePane(pane: PaneInfo): string {
  const parts = [`window '${pane.windowName}'`];
  if (pane.agentTag) parts.push(`@macs_agent=${pane.agentTag}`);
  if (pane.title) parts.push(`title '${pane.title}'`);
  if (pane.currentCommand) parts.push(`running ${pane.currentCommand}`);
  if (pane.dead) parts.push('dead');
  return `${pane.id} (${parts.join(', ')})`;
}

const RULE_WORDS: Record<DiscoveryRule, string> = {
  pinned: 'pinned',
  tag: 'tagged @macs_agent',
  title: 'with the name in their window or pane title',
  command: 'running the same program',
};

/**
 * Find the pane of an agent on the client's server (SPEC §5). Throws an
 * AgentError listing the candidates when it is ambiguous, or saying what was
 * tried when there is none.
 */
export async function discoverPane(options: {
  agent: string;
  tmux: TmuxClient;
  paths: HomePaths;
  program?: string;
}): Promise<{ pane: string; rule: DiscoveryRule }> {
  const { agent, tmux, paths } = options;
  const [panes, pinned] = await Promise.all([
    tmux.listPanes(),
    readPin(paths, agent, tmux.socket),
  ]);
  const result = choosePane({
    agent,
    panes,
    ...(pinned ? { pinned } : {}),
    ...(options.program ? { program: options.program } : {}),
  });
  switch (result.type) {
    case 'found':
      return { pane: result.pane, rule: result.rule };
    case 'ambiguous':
      throw new AgentError(
        `several panes could be agent '${agent}' (${RULE_WORDS[result.rule]}):\n  ${result.candidates.map(describePane).join('\n  ')}`,
        {
          hint: `pin one with: macs target ${agent} <pane>   (or pass --worker-pane)`,
        },
      );
    case 'none':
      throw new AgentError(
        `no pane found for agent '${agent}'${result.pinnedMissing ? ` (its pinned pane ${result.pinnedMissing} is gone)` : ''}: none is tagged @macs_agent=${agent}, has the name in its title${options.program ? `, or runs ${options.program}` : ''}`,
        {
          hint: `pin one with: macs target ${agent} <pane>, or pass --worker-pane %N`,
        },
      );
    default:
      return assertNever(result);
  }
}
