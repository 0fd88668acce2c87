import type { MacsEvent } from './types.js';

/**
 * One event as a line for people (`macs events`, `macs bridge`): its time,
 * agent, type, request and data. A host's event is printed the same way
 * (its `type` unchecked against this machine's).
 */
export function formatEventLine(
  event: Omit<MacsEvent, 'type'> & { type: string },
): string {
  const time = event.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const data =
    event.data && Object.keys(event.data).length
      ? ` ${JSON.stringify(event.data)}`
      : '';
  return `${time}  ${event.agent}  ${event.type}${event.requestId ? `  ${event.requestId}` : ''}${data}`;
}
