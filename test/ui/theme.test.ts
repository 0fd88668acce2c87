import { describe, expect, it } from 'vitest';
import {
  eventColour,
  requestColour,
  stateColour,
  toneColour,
} from '../../src/ui/theme.js';

describe('status to colour', () => {
  it.each([
    ['working', 'cyan'],
    ['idle', 'green'],
    ['approval', 'yellow'],
    ['error', 'red'],
    ['dead', 'red'],
    ['unknown', 'gray'],
  ] as const)('agent state %s is %s', (state, colour) => {
    expect(stateColour(state)).toBe(colour);
  });

  it.each([
    [{ stage: 'routed', waitingForPerson: true }, 'yellow'],
    [{ stage: 'routed', waitingForPerson: false }, 'white'],
    [{ stage: 'answered', waitingForPerson: false }, 'cyan'],
    [{ stage: 'delivering', waitingForPerson: false }, 'cyan'],
    [{ stage: 'unconfirmed', waitingForPerson: false }, 'red'],
  ] as const)('request %o is %s', (request, colour) => {
    expect(requestColour(request)).toBe(colour);
  });

  it.each([
    ['error', 'red'],
    ['request.unconfirmed', 'red'],
    ['warning', 'yellow'],
    ['attention', 'yellow'],
    ['delivery.held', 'yellow'],
    ['request.delivered', 'green'],
    ['request.detected', 'white'],
    ['hook.Stop', 'magenta'],
    ['state.changed', 'gray'],
  ])('event %s is %s', (type, colour) => {
    expect(eventColour(type)).toBe(colour);
  });

  it('message tones', () => {
    expect([toneColour('ok'), toneColour('error'), toneColour('info')]).toEqual(
      ['green', 'red', 'yellow'],
    );
  });
});
