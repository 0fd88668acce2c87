/**
 * How the view degrades on small terminals, as pure functions: columns are
 * dropped by priority when the width is short, panels when the height is.
 */

export interface ColumnSpec<K extends string = string> {
  key: K;
  title: string;
  width: number;
  /** Lower is kept longer; 0 is always kept. */
  priority: number;
}

/** The columns that fit in `width` (one space between columns), in their original order. */
export function fitColumns<K extends string>(
  columns: readonly ColumnSpec<K>[],
  width: number,
  reserve = 0,
): ColumnSpec<K>[] {
  const kept = new Set<K>();
  let used = reserve;
  const byPriority = [...columns].sort((a, b) => a.priority - b.priority);
  for (const column of byPriority) {
    const need = column.width + (kept.size > 0 ? 1 : 0);
    if (column.priority === 0 || used + need <= width) {
      kept.add(column.key);
      used += need;
    }
  }
  return columns.filter((c) => kept.has(c.key));
}

export type AgentColumnKey =
  | 'name'
  | 'preset'
  | 'state'
  | 'source'
  | 'since'
  | 'pane'
  | 'pending'
  | 'delivered'
  | 'roundTrip'
  | 'usage'
  | 'flags';

export function agentColumns(nameWidth: number): ColumnSpec<AgentColumnKey>[] {
  return [
    { key: 'name', title: 'AGENT', width: nameWidth, priority: 0 },
    { key: 'preset', title: 'PRESET', width: 8, priority: 7 },
    { key: 'state', title: 'STATE', width: 8, priority: 0 },
    { key: 'source', title: 'SOURCE', width: 8, priority: 5 },
    { key: 'since', title: 'FOR', width: 6, priority: 1 },
    { key: 'pane', title: 'PANE', width: 5, priority: 6 },
    { key: 'pending', title: 'PEND', width: 4, priority: 2 },
    { key: 'delivered', title: 'DELIV', width: 5, priority: 4 },
    { key: 'roundTrip', title: 'LAST RT', width: 7, priority: 8 },
    { key: 'usage', title: 'TOKENS $', width: 13, priority: 9 },
    { key: 'flags', title: '', width: 9, priority: 3 },
  ];
}

export type RequestColumnKey = 'age' | 'agent' | 'type' | 'status' | 'text';

/** `text` (the first line) takes whatever is left; its width here is its minimum. */
export function requestColumns(
  agentWidth: number,
): ColumnSpec<RequestColumnKey>[] {
  return [
    { key: 'age', title: 'AGE', width: 6, priority: 1 },
    { key: 'agent', title: 'AGENT', width: agentWidth, priority: 2 },
    { key: 'type', title: 'TYPE', width: 9, priority: 4 },
    { key: 'status', title: 'STATUS', width: 10, priority: 3 },
    { key: 'text', title: 'REQUEST', width: 12, priority: 0 },
  ];
}

export type PanelKind = 'detail' | 'answer' | 'help';

export interface LayoutInput {
  rows: number;
  agents: number;
  requests: number;
  events: number;
  /** The panel in use, if any (detail, the answer editor, the help). */
  panel: PanelKind | undefined;
  /** Lines the panel would like (its content plus its frame). */
  panelWant: number;
  keyBarLines: number;
}

export interface LayoutPlan {
  /** Visible rows of each list (0: the section is not shown). */
  agentRows: number;
  requestRows: number;
  eventRows: number;
  /** Lines given to the panel, its frame included (0: not shown). */
  panelLines: number;
  showAgents: boolean;
  showRequests: boolean;
  showEvents: boolean;
}

/** A section's title line and its column header line. */
const LIST_CHROME = 2;
/** The header line and the message line. */
export const FIXED_LINES = 2;
const PANEL_MIN = 5;
/** The events title and two events. */
const EVENTS_MIN = 3;

/**
 * Share the height out. Minimums first, in order: the open panel (it is what
 * the user asked for), requests, agents, events; a section whose minimum
 * does not fit is dropped. What is left goes to requests and agents (a third
 * each at most while something else wants room), the panel, the events, and
 * finally to any list still cut short. One line is kept free at the bottom
 * so the terminal never scrolls.
 */
export function planLayout(input: LayoutInput): LayoutPlan {
  let left = input.rows - 1 - FIXED_LINES - input.keyBarLines;
  const wantAgents = Math.max(1, input.agents);
  const wantRequests = Math.max(1, input.requests);
  const wantEvents = input.events;
  const plan: LayoutPlan = {
    agentRows: 0,
    requestRows: 0,
    eventRows: 0,
    panelLines: 0,
    showAgents: false,
    showRequests: false,
    showEvents: false,
  };
  const take = (n: number) => {
    left -= n;
    return n;
  };
  if (input.panel && left >= PANEL_MIN) {
    plan.panelLines = take(PANEL_MIN);
  }
  if (left >= LIST_CHROME + 1) {
    plan.showRequests = true;
    plan.requestRows = 1;
    take(LIST_CHROME + 1);
  }
  if (left >= LIST_CHROME + 1) {
    plan.showAgents = true;
    plan.agentRows = 1;
    take(LIST_CHROME + 1);
  }
  if (wantEvents > 0 && left >= EVENTS_MIN && !input.panel) {
    plan.showEvents = true;
    plan.eventRows = EVENTS_MIN - 1;
    take(EVENTS_MIN);
  }
  const third = Math.max(1, Math.floor((input.rows - 1) / 3));
  const grow = (current: number, want: number, cap: number) => {
    const extra = Math.max(0, Math.min(want - current, cap - current, left));
    left -= extra;
    return current + extra;
  };
  if (plan.showRequests)
    plan.requestRows = grow(plan.requestRows, wantRequests, third);
  if (plan.showAgents) plan.agentRows = grow(plan.agentRows, wantAgents, third);
  if (plan.panelLines > 0)
    plan.panelLines = grow(plan.panelLines, input.panelWant, Infinity);
  if (plan.showEvents)
    plan.eventRows = grow(plan.eventRows, wantEvents, Infinity);
  if (plan.showRequests)
    plan.requestRows = grow(plan.requestRows, wantRequests, Infinity);
  if (plan.showAgents)
    plan.agentRows = grow(plan.agentRows, wantAgents, Infinity);
  return plan;
}

/** The slice [start, end) of `count` rows to show in `size` lines, keeping `selected` in view. */
export function windowRows(
  count: number,
  selected: number,
  size: number,
): { start: number; end: number } {
  if (count <= size) return { start: 0, end: count };
  const half = Math.floor(size / 2);
  const start = Math.min(Math.max(0, selected - half), count - size);
  return { start, end: start + size };
}
