/**
 * Pure parsing of tmux `-F` output. Fields are separated by a unit separator
 * that tmux leaves alone and that pane titles practically never contain.
 */
export const FIELD_SEPARATOR = '\u001f';

/** Pane facts macs reads. */
export interface PaneInfo {
  id: string;
  pid: number;
  dead: boolean;
  deadStatus: number | undefined;
  inMode: boolean;
  width: number;
  height: number;
  piped: boolean;
  currentCommand: string;
  title: string;
  windowName: string;
  sessionName: string;
  /** The `@macs_agent` pane option, when set. */
  agentTag: string;
  /** The `@macs_pipe` pane option: the log file macs piped this pane into. */
  pipeTag: string;
  /** The cursor's column and row in the visible pane (from 0). */
  cursorX?: number;
  cursorY?: number;
  /** The program shows the alternate screen (full-screen programs). */
  alternateOn?: boolean;
  /** The `@macs_pipe_pid` pane option: the pid of the bridge that reads the pipe. */
  pipeOwner?: number;
}

const PANE_FIELDS = [
  '#{pane_id}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_dead_status}',
  '#{pane_in_mode}',
  '#{pane_width}',
  '#{pane_height}',
  '#{pane_pipe}',
  '#{pane_current_command}',
  '#{pane_title}',
  '#{window_name}',
  '#{session_name}',
  '#{@macs_agent}',
  '#{@macs_pipe}',
  // Optional: lines without them (older callers, fakes) still parse.
  '#{cursor_x}',
  '#{cursor_y}',
  '#{alternate_on}',
  '#{@macs_pipe_pid}',
] as const;

/** Fields every pane line must have; the ones after are optional. */
const REQUIRED_FIELDS = 14;

export const PANE_FORMAT = PANE_FIELDS.join(FIELD_SEPARATOR);

function toInt(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Parse one line printed with PANE_FORMAT; undefined when it is not one. */
export function parsePaneLine(line: string): PaneInfo | undefined {
  const f = line.split(FIELD_SEPARATOR);
  if (f.length < REQUIRED_FIELDS || !f[0]?.startsWith('%')) return undefined;
  const cursorX = toInt(f[14]);
  const cursorY = toInt(f[15]);
  const pipeOwner = toInt(f[17]);
  return {
    id: f[0],
    pid: toInt(f[1]) ?? 0,
    dead: f[2] === '1',
    deadStatus: toInt(f[3]),
    inMode: f[4] === '1',
    width: toInt(f[5]) ?? 80,
    height: toInt(f[6]) ?? 24,
    piped: f[7] === '1',
    currentCommand: f[8] ?? '',
    title: f[9] ?? '',
    windowName: f[10] ?? '',
    sessionName: f[11] ?? '',
    agentTag: f[12] ?? '',
    pipeTag: f[13] ?? '',
    ...(cursorX === undefined ? {} : { cursorX }),
    ...(cursorY === undefined ? {} : { cursorY }),
    ...(f[16] === undefined ? {} : { alternateOn: f[16] === '1' }),
    ...(pipeOwner === undefined ? {} : { pipeOwner }),
  };
}

/** Parse many lines (list-panes output), skipping blank ones. */
export function parsePaneList(stdout: string): {
  panes: PaneInfo[];
  /** Lines that are not in PANE_FORMAT (the first few). */
  unreadable: string[];
} {
  const panes: PaneInfo[] = [];
  const unreadable: string[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    const pane = parsePaneLine(line);
    if (pane) panes.push(pane);
    else if (unreadable.length < 3) unreadable.push(line);
  }
  return { panes, unreadable };
}

/**
 * Why a line printed with PANE_FORMAT could not be read, for an error that
 * names the reading, not the pane: tmux replaced the separators (`_`)
 * when its client was not UTF-8.
 */
export function describeUnreadablePaneLine(line: string): string {
  const fields = line.split(FIELD_SEPARATOR).length;
  return `tmux printed ${JSON.stringify(line.slice(0, 80))} (${fields} field${fields === 1 ? '' : 's'}, at least ${REQUIRED_FIELDS} expected)`;
}
