/**
 * Claude Code teammates adopted as agents (docs/hooks.md "Agent teams"). A
 * supervised Claude Code lead run with agent teams in tmux mode splits its
 * window: each teammate is a pane of the session's server, untagged, whose
 * process names it (`--agent-name alice`) and the lead's conversation
 * (`--parent-session-id <id>`, which macs records: conversation.recorded).
 * The session's bridge looks for such panes with its new agents; a pane whose
 * parent conversation is a supervised lead's is tagged `<lead>.<teammate>`,
 * recorded in `.macs/teammates.json` (state/teammates.ts) and supervised with
 * the lead's preset. A pane any program spawns that names no supervised
 * lead's conversation is left alone: it is never taken for a worker. When
 * an adopted teammate's pane goes, its end is recorded (`teammate.ended`).
 */
import { createEventLog } from '../events/log.js';
import type { EventInput } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import { readConversation } from '../state/conversation-record.js';
import { readAgentState } from '../state/store.js';
import {
  parseTeammateArgs,
  readTeammates,
  shownTeammateName,
  teammateAgentName,
  writeTeammates,
  type TeammateArgs,
  type TeammateRecord,
} from '../state/teammates.js';
import type { PaneInfo, TmuxClient } from '../tmux/client.js';
import {
  processTree,
  readProcessArgv,
  readProcessTable,
} from '../tmux/processes.js';

/**
 * The teammate a pane runs: its process's argv, else (a shell that runs it)
 * a descendant's.
 */
async function paneTeammateArgs(
  pid: number,
): Promise<TeammateArgs | undefined> {
  const own = await readProcessArgv(pid);
  const direct = own ? parseTeammateArgs(own) : undefined;
  if (direct) return direct;
  const table = await readProcessTable().catch(() => []);
  for (const p of processTree(table, pid)) {
    const found = parseTeammateArgs(p.argv);
    if (found) return found;
  }
  return undefined;
}

/** A supervised agent that may lead a team (its preset is Claude Code's). */
export interface Lead {
  name: string;
  preset: string;
}

export interface AdoptedTeammate {
  agent: string;
  /** The lead's preset, which the teammate is supervised with. */
  preset: string;
}

/** A pane that names no lead's teammate is looked at again for this long. */
const YOUNG_PANE_MS = 30_000;

export interface TeammateFinder {
  /**
   * Adopt the teammate panes of `leads` not yet adopted, and record the end
   * of those whose pane went. `known`: names of the agents supervised now.
   */
  find(
    leads: readonly Lead[],
    known: ReadonlySet<string>,
  ): Promise<AdoptedTeammate[]>;
}

export function createTeammateFinder(options: {
  tmux: TmuxClient;
  paths: HomePaths;
}): TeammateFinder {
  const { tmux, paths } = options;
  const events = createEventLog(paths);
  // An event records what happened; one that cannot be written stops nothing.
  const emit = (input: EventInput) =>
    events.emit(input).then(
      () => undefined,
      () => undefined,
    );
  /**
   * Panes looked at and left, with their program's pid and when it was
   * first seen: one is looked at again only while young (a shell that
   * starts the teammate shows its argv a moment later).
   */
  const passed = new Map<string, { pid: number; since: number }>();
  const pass = (pane: PaneInfo) => {
    const was = passed.get(pane.id);
    if (was?.pid !== pane.pid)
      passed.set(pane.id, { pid: pane.pid, since: Date.now() });
  };
  const settled = (pane: PaneInfo) => {
    const was = passed.get(pane.id);
    return was?.pid === pane.pid && Date.now() - was.since > YOUNG_PANE_MS;
  };
  const warned = new Set<string>();

  async function endGone(
    teammates: TeammateRecord[],
    panes: ReadonlyMap<string, PaneInfo>,
  ): Promise<boolean> {
    let changed = false;
    for (const t of teammates) {
      if (t.endedAt) continue;
      const pane = panes.get(t.pane);
      if (pane && !pane.dead && pane.agentTag === t.agent) continue;
      t.endedAt = new Date().toISOString();
      changed = true;
      await emit({
        agent: t.agent,
        type: 'teammate.ended',
        data: {
          lead: t.lead,
          name: t.name,
          shownAs: shownTeammateName(t),
          pane: t.pane,
          why: pane
            ? pane.dead
              ? 'its program ended'
              : 'untagged'
            : 'its pane is gone',
        },
      });
    }
    return changed;
  }

  return {
    async find(leads, known) {
      const list = await tmux.listPanes();
      const panes = new Map(list.map((p) => [p.id, p]));
      const teammates = await readTeammates(paths);
      let changed = await endGone(teammates, panes);
      const conversations = new Map<string, Lead>();
      for (const lead of leads) {
        const id = (await readConversation(paths, lead.name))?.id;
        if (id) conversations.set(id, lead);
      }
      const adopted: AdoptedTeammate[] = [];
      for (const pane of list) {
        if (pane.agentTag || pane.dead || conversations.size === 0) continue;
        if (settled(pane)) continue;
        const args = await paneTeammateArgs(pane.pid);
        const lead = args && conversations.get(args.parentSession);
        if (!args || !lead) {
          pass(pane);
          continue;
        }
        const agent = teammateAgentName(lead.name, args.name);
        // The name is this lead's teammate's (one adopted before, whose pane
        // went), or no agent's yet: never another agent's.
        const earlier = teammates.find((t) => t.agent === agent);
        const ours = earlier?.lead === lead.name && Boolean(earlier.endedAt);
        const taken =
          agent &&
          (earlier
            ? !ours
            : known.has(agent) || (await readAgentState(paths, agent)));
        if (!agent || taken) {
          pass(pane);
          if (!warned.has(pane.id)) {
            warned.add(pane.id);
            await emit({
              agent: lead.name,
              type: 'warning',
              data: {
                message: `teammate ${args.name} of ${lead.name} in pane ${pane.id} is not adopted: ${agent ? `the name ${agent} is another agent's` : `no agent name can be made of '${args.name}'`}`,
              },
            });
          }
          continue;
        }
        await tmux.setPaneOption(pane.id, '@macs_agent', agent);
        const record: TeammateRecord = {
          agent,
          lead: lead.name,
          name: args.name,
          ...(args.team ? { team: args.team } : {}),
          pane: pane.id,
          parentSession: args.parentSession,
          adoptedAt: new Date().toISOString(),
        };
        const i = teammates.findIndex((t) => t.agent === agent);
        if (i >= 0) teammates[i] = record;
        else teammates.push(record);
        changed = true;
        // A name supervised already (its pane went) takes the new pane up
        // by its tag; a new one is a new agent of the bridge.
        if (!known.has(agent)) adopted.push({ agent, preset: lead.preset });
        await emit({
          agent,
          type: 'teammate.adopted',
          data: {
            lead: lead.name,
            name: args.name,
            shownAs: shownTeammateName(record),
            pane: pane.id,
            ...(args.team ? { team: args.team } : {}),
          },
        });
      }
      if (changed) await writeTeammates(paths, teammates);
      return adopted;
    },
  };
}
