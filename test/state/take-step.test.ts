// The one door to the ledger (issue 30): a step applied, saved, its event
// left and a refusal reported, in one call, in the order each writer needs.
// Strategy: a host that records its saves and events in one list, so each
// case reads as the sequence the door produced.
import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/events/types.js';
import { detectedRecord } from '../../src/state/ledger.js';
import { takeStep, type StepHost } from '../../src/state/take-step.js';
import type { RequestRecord } from '../../src/state/types.js';

const AT = '2025-03-01T12:00:05.000Z';

function record(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    ...detectedRecord({
      id: 'w1-q1',
      agent: 'w1',
      workerId: 'q1',
      type: 'question',
      priority: 'normal',
      attributes: { id: 'q1' },
      bodyHash: 'h1',
      body: 'Which database?',
      detectedAt: AT,
    }),
    ...over,
  };
}

/** Saves and events in the order the door made them, with the stage saved. */
function recordingHost(of: RequestRecord): {
  host: StepHost;
  seen: string[];
  events: Omit<EventInput, 'agent'>[];
} {
  const seen: string[] = [];
  const events: Omit<EventInput, 'agent'>[] = [];
  return {
    seen,
    events,
    host: {
      emit: (input) => {
        seen.push(`event ${input.type}`);
        events.push(input);
        return Promise.resolve();
      },
      saveNow: () => {
        seen.push(`save ${of.stage}`);
        return Promise.resolve();
      },
    },
  };
}

describe('takeStep', () => {
  it('applies the step, saves, then leaves its event with the request id', async () => {
    const r = record({ stage: 'answered' });
    const { host, seen, events } = recordingHost(r);
    const outcome = await takeStep(
      host,
      r,
      { type: 'delivered', at: AT },
      { type: 'request.delivered', data: { method: 'paste' } },
    );
    expect(outcome).toEqual({
      type: 'moved',
      from: 'answered',
      to: 'delivered',
    });
    expect(r.deliveredAt).toBe(AT);
    expect(seen).toEqual(['save delivered', 'event request.delivered']);
    expect(events[0]).toEqual({
      type: 'request.delivered',
      requestId: 'w1-q1',
      data: { method: 'paste' },
    });
  });

  it('leaves the event before the step when asked (a claim the log must hold first)', async () => {
    const r = record({ stage: 'answered' });
    const { host, seen } = recordingHost(r);
    await takeStep(
      host,
      r,
      { type: 'delivering', at: AT },
      { type: 'request.delivering' },
      { eventFirst: true },
    );
    expect(seen).toEqual(['event request.delivering', 'save delivering']);
  });

  it('saves the changes made alongside the step with it', async () => {
    const r = record({ stage: 'delivered' });
    const { host, seen } = recordingHost(r);
    await takeStep(
      host,
      r,
      { type: 'confirmed', at: AT },
      { type: 'request.confirmed' },
      { alongside: () => void seen.push(`alongside ${r.stage}`) },
    );
    expect(seen).toEqual([
      'alongside confirmed',
      'save confirmed',
      'event request.confirmed',
    ]);
  });

  it('reports a refused step, saves, and leaves neither its event nor the changes alongside', async () => {
    const r = record({ stage: 'unconfirmed' });
    const { host, seen, events } = recordingHost(r);
    const outcome = await takeStep(
      host,
      r,
      { type: 'confirmed', at: AT },
      { type: 'request.confirmed' },
      { alongside: () => void seen.push('alongside') },
    );
    expect(outcome).toEqual({
      type: 'refused',
      from: 'unconfirmed',
      to: 'confirmed',
    });
    expect(r.stage).toBe('unconfirmed');
    expect(seen).toEqual(['event request.step-refused', 'save unconfirmed']);
    expect(events[0]).toEqual({
      type: 'request.step-refused',
      requestId: 'w1-q1',
      data: { step: 'confirmed', from: 'unconfirmed', to: 'confirmed' },
    });
  });

  it('leaves no event first for a step it will refuse', async () => {
    const r = record({ stage: 'expired' });
    const { host, seen } = recordingHost(r);
    await takeStep(
      host,
      r,
      { type: 'delivering', at: AT },
      { type: 'request.delivering' },
      { eventFirst: true },
    );
    expect(seen).toEqual(['event request.step-refused', 'save expired']);
  });

  it('keeps the stage of a step that moves none, and still saves and leaves its event', async () => {
    const r = record({ stage: 'delivering' });
    const { host, seen } = recordingHost(r);
    const outcome = await takeStep(host, r, { type: 'submitting', at: AT });
    expect(outcome).toEqual({ type: 'kept', stage: 'delivering' });
    expect(r.submittingAt).toBe(AT);
    expect(seen).toEqual(['save delivering']);
  });
});
