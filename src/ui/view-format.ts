/**
 * Pure formatting for the status view (and its plain-text twin in
 * `macs status` without a terminal). No React here.
 */

/** `0s`, `42s`, `3m05s`, `2h07m`, `3d04h`. */
export function formatDuration(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  const d = Math.floor(h / 24);
  return `${d}d${String(h % 24).padStart(2, '0')}h`;
}

/** A round trip: `850ms`, `8.2s`, `3m05s`; `—` when there is none yet. */
export function formatRoundTrip(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return formatDuration(ms);
}

/**
 * An age on screen: `<1m`, `4m`, `2h07m`, `3d04h`, always rounded down.
 * Whole minutes: each redraw is the whole frame (ink lays out and styles
 * every cell of the terminal: about 17 ms of CPU at 200x50, several times
 * that while the view is new), so the ages set how often an idle view
 * draws. Ages shown each second, then each ten seconds, made a fresh
 * session's view draw 15 times in its first minute, most of an idle
 * session's cost then (issue 22); now an age changes once a minute. When a
 * state changed to the second is in the events list (its clock time).
 */
export function formatAge(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return '<1m';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return formatDuration(ms);
}

/** How long until `formatAge` of an age of `ms` shows something else. */
export function msUntilAgeChanges(ms: number): number {
  const age = Math.max(0, ms);
  const step = age < 86_400_000 ? 60_000 : 3_600_000;
  return step - (age % step);
}

/**
 * How late an age on screen may change so that it changes with others:
 * agents started together (a fleet of 32 on each of three hosts) reach
 * their next minute a second or two apart, and each drew the whole frame.
 */
export const AGE_BATCH_MS = 5_000;

/**
 * When the next of these ages (ISO times, at `now`) changes on screen, or
 * up to `AGE_BATCH_MS` later when more ages change by then (one frame for
 * them all); undefined: none shown.
 */
export function msUntilNextAgeChange(
  isoTimes: readonly string[],
  now: number,
): number | undefined {
  const waits: number[] = [];
  for (const iso of isoTimes) {
    const t = Date.parse(iso);
    if (!Number.isNaN(t)) waits.push(msUntilAgeChanges(now - t));
  }
  if (waits.length === 0) return undefined;
  const first = Math.min(...waits);
  return Math.max(...waits.filter((w) => w <= first + AGE_BATCH_MS));
}

/** Age of an ISO time at `now` (ms since the epoch). */
export function formatAgeAt(iso: string, now: number): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '?' : formatAge(now - t);
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** `HH:MM:SS` of an ISO time, in a time zone (default: the local one). */
export function formatClock(iso: string, timeZone?: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '--:--:--';
  const zone = timeZone ?? '';
  let format = clockFormats.get(zone);
  if (!format) {
    // Building a formatter is costly; the view formats many times a second.
    format = new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
      ...(timeZone ? { timeZone } : {}),
    });
    clockFormats.set(zone, format);
  }
  return format.format(t);
}

/** Cut a single line to `width` characters, ending with `…` when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, Math.max(0, width)).join('');
  return `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * Wrap text to lines of at most `width` characters: at spaces where it can,
 * hard where a word is longer than a line. Tabs become two spaces.
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    let rest = [...raw.replaceAll('\t', '  ').trimEnd()];
    if (rest.length === 0) out.push('');
    while (rest.length > 0) {
      if (rest.length <= w) {
        out.push(rest.join(''));
        break;
      }
      const space = rest.lastIndexOf(' ', w);
      const cut = space > 0 ? space : w;
      out.push(rest.slice(0, cut).join('').trimEnd());
      rest = rest.slice(space > 0 ? cut + 1 : cut);
    }
  }
  return out;
}

/** A short, one-line description of an event's data for the events panel. */
export function describeEventData(
  type: string,
  data: Record<string, unknown> | null,
): string {
  if (!data) return '';
  const str = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : '';
  switch (type) {
    case 'state.changed':
      return `${str(data.from)} → ${str(data.to)} (${str(data.source)})`;
    case 'request.detected':
      return `${str(data.type)}, ${str(data.chars)} chars`;
    case 'request.routed':
      return `to ${str(data.backend)}`;
    case 'request.answered':
    case 'request.answered-empty':
      return data.notes
        ? `notes: ${firstLine(str(data.notes))}`
        : `${str(data.chars)} chars from ${str(data.source)}`;
    case 'request.delivered':
      return `${str(data.method)}, ${str(data.chars)} chars, waited ${formatDuration(Number(data.waitedMs) || 0)}`;
    case 'error':
    case 'warning':
      return str(data.message);
    case 'delivery.waiting':
    case 'request.expired':
      return str(data.reason);
    case 'preset.changed':
      return `preset ${str(data.from)} → ${str(data.to)} (pane runs ${str(data.program)})`;
    default: {
      const text = JSON.stringify(data);
      return text === '{}' ? '' : text;
    }
  }
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim()) ?? '';
}
