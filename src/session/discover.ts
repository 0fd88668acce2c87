import { AgentError, assertNever } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import type { PaneInfo, TmuxClient } from '../tmux/client.js';
import {
  processTree,
  readProcessTable,
  treeRunsProgram,
  type ProcessInfo,
} from '../tmux/processes.js';
import { readPin } from './record.js';

/** Which rule found an agent's pane (SPEC §5, in this order). */
export type DiscoveryRule = 'pinned' | 'tag' | 'title' | 'command';

export const DISCOVERY_RULES: readonly DiscoveryRule[] = [
  'pinned',
  'tag',
  'title',
  'command',
];

/** The rules that find an agent's own pane again: never another program's. */
export const OWN_PANE_RULES: readonly DiscoveryRule[] = ['pinned', 'tag'];

export interface DiscoveryInput {
  agent: string;
  panes: readonly PaneInfo[];
  /** The pane pinned with `macs target`, if any. */
  pinned?: string;
  /**
   * The preset's program: a pane runs it when `#{pane_current_command}` is
   * that name or any process of the pane's tree runs it (`processes`).
   * Empty or absent skips that rule.
   */
  program?: string;
  /** Each pane's process and its descendants (by pane id), when read. */
  processes?: ReadonlyMap<string, readonly ProcessInfo[]>;
  /**
   * Only these rules (default: all). An agent that died is looked for by
   * its pin and tag only: a pane found by title or program is another
   * program, which never asked for the agent's answers.
   */
  rules?: readonly DiscoveryRule[];
}

export type DiscoveryResult =
  | { type: 'found'; pane: string; rule: DiscoveryRule }
  | { type: 'ambiguous'; rule: DiscoveryRule; candidates: PaneInfo[] }
  | { type: 'none'; pinnedMissing?: string }
  /** The pinned pane is tagged for another agent. */
  | { type: 'taken'; pane: string; owner: string };

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
 * pane tagged `@macs_agent=<name>`, then the one live, untagged pane whose
 * window name or pane title contains the name, then the one live, untagged
 * pane running the preset's program. A pane tagged for another agent is
 * never chosen (identity is the pane plus its tag: docs/reliability.md).
 * Several panes at the first rule that matches any is ambiguous; a later
 * rule is never used to break the tie.
 */
export function choosePane(input: DiscoveryInput): DiscoveryResult {
  const { agent, panes, pinned, program, processes } = input;
  const runsProgram = (p: PaneInfo) =>
    !!program &&
    (p.currentCommand === program ||
      treeRunsProgram(processes?.get(p.id) ?? [], program));
  const allowed = new Set(input.rules ?? DISCOVERY_RULES);
  if (pinned && allowed.has('pinned')) {
    const pin = panes.find((p) => p.id === pinned);
    if (pin && pin.agentTag && pin.agentTag !== agent)
      return { type: 'taken', pane: pinned, owner: pin.agentTag };
    if (pin) return { type: 'found', pane: pinned, rule: 'pinned' };
  }
  const live = panes.filter((p) => !p.dead && !p.agentTag);
  const rules: [DiscoveryRule, PaneInfo[]][] = [
    ['tag', panes.filter((p) => p.agentTag === agent)],
    [
      'title',
      live.filter(
        (p) =>
          containsName(p.windowName, agent) || containsName(p.title, agent),
      ),
    ],
    ['command', program ? live.filter(runsProgram) : []],
  ];
  for (const [rule, matches] of rules) {
    if (!allowed.has(rule)) continue;
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
  title: 'untagged, with the name in their window or pane title',
  command: 'untagged, running the same program',
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
  rules?: readonly DiscoveryRule[];
}): Promise<{ pane: string; rule: DiscoveryRule }> {
  const { agent, tmux, paths } = options;
  const [panes, pinned] = await Promise.all([
    tmux.listPanes(),
    readPin(paths, agent, tmux.socket),
  ]);
  const input: DiscoveryInput = {
    agent,
    panes,
    ...(pinned ? { pinned } : {}),
    ...(options.program ? { program: options.program } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
  };
  let result = choosePane(input);
  const byProgram =
    !!options.program &&
    (options.rules ?? DISCOVERY_RULES).includes('command') &&
    (result.type === 'none' ||
      (result.type !== 'taken' && result.rule === 'command'));
  if (byProgram) {
    // The program rule decides: look at what runs in each candidate pane
    // (a pane's pid is its own process; pid 1's tree would be everything).
    const table = await readProcessTable();
    const processes = new Map(
      panes
        .filter((p) => !p.dead && !p.agentTag && p.pid > 1)
        .map((p) => [p.id, processTree(table, p.pid)] as const),
    );
    result = choosePane({ ...input, processes });
  }
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
    case 'taken':
      throw new AgentError(
        `the pane pinned for agent '${agent}', ${result.pane}, belongs to agent '${result.owner}' (@macs_agent=${result.owner})`,
        {
          hint: `pin another pane: macs target ${agent} <pane>; a pane tagged for one agent is never used for another`,
        },
      );
    case 'none': {
      const ownOnly = options.rules?.every((r) => OWN_PANE_RULES.includes(r));
      throw new AgentError(
        `no pane found for agent '${agent}'${result.pinnedMissing ? ` (its pinned pane ${result.pinnedMissing} is gone)` : ''}: none is tagged @macs_agent=${agent}${ownOnly ? '' : `, or untagged with the name in its title${options.program ? ` or running ${options.program}` : ''}`}`,
        {
          hint: `pin one with: macs target ${agent} <pane>, or pass --worker-pane %N`,
        },
      );
    }
    default:
      return assertNever(result);
  }
}
