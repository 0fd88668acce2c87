import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_DELIVERY_RULES,
  type Deliverer,
  type DeliveryRequest,
  type DeliveryResult,
} from '../../../src/typist/typist.js';
import { promptOnce } from '../../../src/bridge/fleet/prompt-once.js';
import type { FirstMessageSpec } from '../../../src/bridge/fleet/types.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import type { EventInput } from '../../../src/events/types.js';
import { FakeTmuxClient } from '../../helpers/fake-tmux.js';
import { phasesOf, scriptedTyping } from '../../helpers/scripted-typing.js';
import { waitFor } from '../../helpers/wait-for.js';

/** A deliverer that answers each delivery with the next result given. */
function fakeDeliverer(results: (DeliveryResult | Error)[]) {
  const typed: DeliveryRequest[] = [];
  const deliverer: Deliverer = {
    begin(request) {
      typed.push(request);
      const next = results.shift() ?? new Error('no more results');
      return Promise.resolve(
        scriptedTyping(
          next instanceof Error
            ? { waitTypeable: () => Promise.reject(next) }
            : phasesOf(next),
        ),
      );
    },
    deliver() {
      return Promise.reject(new Error('the first message calls the phases'));
    },
  };
  return { deliverer, typed };
}

describe('promptOnce: the first message of an agent', () => {
  let abort = new AbortController();
  afterEach(() => {
    abort.abort();
    abort = new AbortController();
  });

  function setup(
    results: (DeliveryResult | Error)[],
    sent = false,
    open: { id?: string } = {},
  ) {
    const tmux = new FakeTmuxClient();
    tmux.addPane({ id: '%1', screen: 'ready ❯' });
    const message: FirstMessageSpec = {
      text: 'You are a worker. Ask with a request block.',
      exampleHashes: new Set(),
      sent,
    };
    const slot = {
      agent: {
        name: 'w1',
        role: 'worker' as const,
        profile: {
          preset: 'generic',
          rules: DEFAULT_DELIVERY_RULES,
          classify: () => 'idle' as const,
        },
        firstMessage: message,
      },
      pane: '%1',
      prompting: false,
    };
    const events: EventInput[] = [];
    const prompted: string[] = [];
    const problems: unknown[] = [];
    const { deliverer, typed } = fakeDeliverer(results);
    const run = () =>
      promptOnce(slot, {
        tmux,
        deliverer,
        config: ConfigSchema.parse({}),
        signal: abort.signal,
        readState: () => Promise.resolve('idle'),
        openRequest: () => (open.id ? { requestId: open.id } : undefined),
        emit: (input) => {
          events.push(input);
          return Promise.resolve();
        },
        onPrompted: (agent) => {
          prompted.push(agent);
          return Promise.resolve();
        },
        onProblem: (error) => {
          problems.push(error);
          return Promise.resolve();
        },
      });
    return { slot, message, events, prompted, problems, typed, run, open };
  }

  // A program that asked before its first message waits for that answer:
  // typed then, the protocol was read as the answer (seen with a Python
  // script under macs start). It knows the protocol: nothing is typed.
  it('types nothing into an agent that already asked and waits for its answer, and keeps the message', async () => {
    const s = setup(
      [{ type: 'delivered', method: 'paste', chars: 40, waitedMs: 0 }],
      false,
      { id: 'w1-q1' },
    );
    s.run();
    await waitFor(() => s.prompted.length === 1, { timeout: 10_000 });
    expect(s.typed).toEqual([]);
    expect(s.message.sent).toBe(true);
    expect(s.events).toEqual([
      expect.objectContaining({
        type: 'agent.prompt-kept',
        requestId: 'w1-q1',
        data: expect.objectContaining({
          why: expect.stringMatching(/asked w1-q1 already/),
        }),
      }),
    ]);
  });

  it('types the message once the screen settles, records it, and never again', async () => {
    const s = setup([
      {
        type: 'delivered',
        method: 'paste',
        chars: 40,
        waitedMs: 0,
      },
    ]);
    s.run();
    expect(s.slot.prompting).toBe(true);
    s.run(); // on its way: not a second time
    await waitFor(() => s.prompted.length === 1, { timeout: 10_000 });
    expect(s.message.sent).toBe(true);
    expect(s.slot.prompting).toBe(false);
    expect(s.typed.map((r) => r.text)).toEqual([s.message.text]);
    expect(s.events.map((e) => e.type)).toEqual(['agent.prompted']);
    s.run(); // sent: nothing more
    expect(s.slot.prompting).toBe(false);
    expect(s.typed).toHaveLength(1);
  });

  it('sends nothing for a message sent in an earlier run', () => {
    const s = setup([], true);
    s.run();
    expect(s.slot.prompting).toBe(false);
    expect(s.typed).toHaveLength(0);
  });

  it('reports a failure once and does not retry it forever', async () => {
    const s = setup([new Error('pane went away')]);
    s.run();
    await waitFor(() => s.problems.length === 1, { timeout: 10_000 });
    expect(String(s.problems[0])).toMatch(/pane went away/);
    expect(s.message.sent).toBe(true);
    expect(s.prompted).toEqual([]);
  });
});
