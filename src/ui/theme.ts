/**
 * Status to colour, as pure functions: the one place the view's colours are
 * decided. Colours are ink colour names.
 */
import type {
  AgentSnapshot,
  RequestSnapshot,
} from '../state/snapshot-schema.js';

export type Colour =
  'green' | 'yellow' | 'red' | 'cyan' | 'blue' | 'magenta' | 'gray' | 'white';

/** An agent's state: busy is cyan, ready is green, blocked is yellow, broken is red. */
export function stateColour(state: AgentSnapshot['state']): Colour {
  switch (state) {
    case 'working':
      return 'cyan';
    case 'idle':
      return 'green';
    case 'approval':
      return 'yellow';
    case 'error':
      return 'red';
    case 'dead':
      return 'red';
    case 'unknown':
      return 'gray';
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** A pending request: waiting for a person stands out in yellow. */
export function requestColour(
  request: Pick<RequestSnapshot, 'stage' | 'waitingForPerson'>,
): Colour {
  if (request.waitingForPerson) return 'yellow';
  switch (request.stage) {
    case 'detected':
    case 'routed':
      return 'white';
    case 'answered':
    case 'delivering':
    case 'pasted':
      return 'cyan';
    case 'delivered':
    case 'confirmed':
      return 'green';
    case 'answered-empty':
    case 'expired':
    case 'dismissed':
      return 'gray';
    case 'unconfirmed':
      return 'red';
    default: {
      const never: never = request.stage;
      return never;
    }
  }
}

/** An event line, by its type. */
export function eventColour(type: string): Colour {
  if (type === 'error' || type.endsWith('.unconfirmed')) return 'red';
  if (
    type === 'warning' ||
    type === 'attention' ||
    type.endsWith('.timeout') ||
    type.startsWith('delivery.')
  )
    return 'yellow';
  if (type === 'request.delivered' || type === 'request.confirmed')
    return 'green';
  if (type.startsWith('request.')) return 'white';
  if (type.startsWith('hook.')) return 'magenta';
  return 'gray';
}

/** A message on the message line. */
export function toneColour(tone: 'info' | 'ok' | 'error'): Colour {
  switch (tone) {
    case 'ok':
      return 'green';
    case 'error':
      return 'red';
    case 'info':
      return 'yellow';
    default: {
      const never: never = tone;
      return never;
    }
  }
}
