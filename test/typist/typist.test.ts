import { describe, expect, it } from 'vitest';
import {
  createDeliverer,
  DEFAULT_DELIVERY_RULES,
  typeAll,
  type DeliveryRequest,
  type DeliveryResult,
  type Typing,
} from '../../src/typist/typist.js';
import { composerHolds } from '../../src/typist/pane-composer.js';
import type { AgentStateName } from '../../src/config/states.js';
import { FakeTmuxClient, type FakePane } from '../helpers/fake-tmux.js';

/**
 * A fake agent behind the fake tmux: typed text shows in its composer (the
 * cursor's row); a press of the submit key is taken when `accept` says so,
 * which echoes the text above and empties the composer.
 */
class AgentTmux extends FakeTmuxClient {
  composer = '';
  transcript: string[] = ['hello'];
  presses = 0;
  accept: (press: number) => boolean = () => true;
  readonly agent: FakePane;
  readonly cancels: string[] = [];

  constructor() {
    super();
    this.agent = this.addPane({ id: '%1' });
    this.render();
  }

  render(): void {
    const rows = [...this.transcript, `❯ ${this.composer}`];
    this.agent.screen = `${rows.join('\n')}\n`;
    this.agent.cursorY = rows.length - 1;
    this.agent.cursorX = 2 + [...this.composer].length;
  }

  override async sendLiteral(pane: string, text: string): Promise<void> {
    await super.sendLiteral(pane, text);
    this.composer += text;
    this.render();
  }

  override async pasteBuffer(pane: string): Promise<void> {
    await super.pasteBuffer(pane);
    this.composer += this.sent.at(-1)?.text ?? '';
    this.render();
  }

  override async sendKey(pane: string): Promise<void> {
    await super.sendKey(pane);
    this.presses += 1;
    if (this.accept(this.presses)) {
      this.transcript.push(`> ${this.composer}`);
      this.composer = '';
    }
    this.render();
  }

  override async cancelMode(pane: string): Promise<void> {
    await super.cancelMode(pane);
    this.cancels.push(pane);
    this.agent.inMode = false;
  }
}

const rules = { ...DEFAULT_DELIVERY_RULES, submitDelayMs: 0 };
const fast = { pollMs: 2, confirmPollMs: 2, confirmTimeoutMs: 60 };
const QUIET_MS = 40;

function request(
  tmux: AgentTmux,
  extra: Partial<DeliveryRequest> = {},
): DeliveryRequest {
  return {
    pane: '%1',
    text: 'run the tests',
    rules,
    readState: () => Promise.resolve('idle'),
    classify: (screen) => (screen.trimEnd().endsWith('❯') ? 'idle' : 'unknown'),
    confirm: { retries: 2 },
    ...extra,
  };
}

/**
 * Every phase in a row, as the bridge calls them, with a look of the
 * test's own right before the text is typed and right after the submit key.
 */
async function typeWatched(
  tmux: AgentTmux,
  req: DeliveryRequest,
  look: { beforeType?: () => void; afterSubmit?: () => void },
): Promise<DeliveryResult> {
  const typing = await createDeliverer(tmux, fast).begin(req);
  const watched: Typing = {
    ...typing,
    type: () => {
      look.beforeType?.();
      return typing.type();
    },
    submit: async () => {
      const submitted = await typing.submit();
      look.afterSubmit?.();
      return submitted;
    },
  };
  try {
    return await typeAll(watched, req.confirm !== undefined);
  } finally {
    typing.end();
  }
}

describe('the phases', () => {
  it('return what each did, and nothing is typed before the caller asks', async () => {
    const tmux = new AgentTmux();
    const typing = await createDeliverer(tmux, fast).begin(request(tmux));
    try {
      expect(await typing.waitTypeable()).toEqual({
        phase: 'waited',
        waitedMs: expect.any(Number),
      });
      // Waited, not typed: the caller's last look goes here.
      expect(tmux.sent).toEqual([]);
      expect(await typing.type()).toEqual({
        phase: 'typed',
        method: 'literal',
        chars: 13,
      });
      expect(await typing.awaitSubmit()).toEqual({ phase: 'due' });
      expect(tmux.presses).toBe(0);
      expect(await typing.submit()).toMatchObject({
        phase: 'submitted',
        submits: 1,
        watchable: true,
      });
      expect(await typing.confirm()).toEqual({
        phase: 'confirmed',
        confirmation: 'composer',
        submits: 1,
      });
      expect(tmux.sent).toEqual([{ pane: '%1', text: 'run the tests' }]);
    } finally {
      typing.end();
    }
  });

  it('give the pane to the next typing only once the first ends', async () => {
    const tmux = new AgentTmux();
    const typist = createDeliverer(tmux, fast);
    const first = await typist.begin(request(tmux));
    let secondBegun = false;
    const second = typist.begin(request(tmux)).then((typing) => {
      secondBegun = true;
      return typing;
    });
    await first.waitTypeable();
    expect(secondBegun).toBe(false);
    first.end();
    (await second).end();
    expect(secondBegun).toBe(true);
  });

  it('an empty text is not waited for', async () => {
    const tmux = new AgentTmux();
    const typing = await createDeliverer(tmux, fast).begin(
      request(tmux, { text: '\u001b[31m\n' }),
    );
    expect(await typing.waitTypeable()).toEqual({ phase: 'empty' });
    typing.end();
  });
});

describe('confirming a submission', () => {
  // Issue 17, item 5: a known agent's screen no rule reads (a sign-in menu,
  // an overlay) was typed into, selecting menu items. It waits, and reports.
  it("never types into a known agent's unknown screen: it waits and reports", async () => {
    const tmux = new AgentTmux();
    const abort = new AbortController();
    const waited: string[] = [];
    const typing = await createDeliverer(tmux, fast).begin(
      request(tmux, {
        rules: { ...rules, typeIntoUnknown: false },
        readState: () => Promise.resolve('unknown'),
        deliverTimeoutMs: 10,
        signal: abort.signal,
      }),
    );
    // The wait reports a long wait once, as a result, and goes on.
    const first = await typing.waitTypeable();
    if (first.phase === 'busy') {
      waited.push(first.state);
      abort.abort();
    }
    expect(await typeAll(typing, true)).toEqual({ type: 'aborted' });
    typing.end();
    expect(waited).toEqual(['unknown']);
    expect(tmux.sent).toEqual([]);
    expect(tmux.presses).toBe(0);
  });

  it('is confirmed when the composer empties', async () => {
    const tmux = new AgentTmux();
    const result = await createDeliverer(tmux, fast).deliver(request(tmux));
    expect(result).toMatchObject({
      type: 'delivered',
      method: 'literal',
      confirmed: true,
      confirmation: 'composer',
      submits: 1,
    });
    expect(tmux.transcript.at(-1)).toBe('> run the tests');
  });

  it('presses the submit key again when the first press is ignored', async () => {
    const tmux = new AgentTmux();
    tmux.accept = (press) => press >= 2;
    const result = await createDeliverer(tmux, fast).deliver(request(tmux));
    expect(result).toMatchObject({ confirmed: true, submits: 2 });
    expect(tmux.sent).toEqual([{ pane: '%1', text: 'run the tests' }]);
  });

  it('gives up after submitRetries more presses, typing the text once', async () => {
    const tmux = new AgentTmux();
    tmux.accept = () => false;
    const result = await createDeliverer(tmux, fast).deliver(request(tmux));
    expect(result).toMatchObject({
      type: 'delivered',
      confirmed: false,
      submits: 3,
    });
    expect(tmux.presses).toBe(3);
    expect(tmux.sent).toHaveLength(1);
  });

  it('takes the agent turning working as a confirmation', async () => {
    const tmux = new AgentTmux();
    tmux.accept = () => false;
    let pressed = false;
    const result = await typeWatched(
      tmux,
      request(tmux, { classify: () => (pressed ? 'working' : 'idle') }),
      {
        afterSubmit: () => {
          pressed = true;
        },
      },
    );
    expect(result).toMatchObject({ confirmed: true, confirmation: 'working' });
  });

  it("takes the agent's hook as a confirmation", async () => {
    const tmux = new AgentTmux();
    tmux.accept = () => false;
    const result = await createDeliverer(tmux, fast).deliver(
      request(tmux, { confirm: { retries: 2, confirmed: () => true } }),
    );
    expect(result).toMatchObject({ confirmed: true, confirmation: 'hook' });
  });

  it('prefers the hook when it reports the prompt soon after the screen', async () => {
    const tmux = new AgentTmux();
    let hookSaw = false;
    const result = await typeWatched(
      tmux,
      request(tmux, {
        confirm: {
          retries: 2,
          confirmed: () => hookSaw,
          preferConfirmedMs: 500,
        },
      }),
      {
        afterSubmit: () => {
          setTimeout(() => {
            hookSaw = true;
          }, 20);
        },
      },
    );
    expect(result).toMatchObject({ confirmed: true, confirmation: 'hook' });
  });

  it('does not confirm unless asked', async () => {
    const tmux = new AgentTmux();
    tmux.accept = () => false;
    const { confirm: _confirm, ...plain } = request(tmux);
    const result = await createDeliverer(tmux, fast).deliver(plain);
    expect(result).toEqual({
      type: 'delivered',
      method: 'literal',
      chars: 13,
      waitedMs: expect.any(Number),
      submits: 1,
    });
  });

  it('reports a pane that dies after the submit key as delivered, unconfirmed', async () => {
    const tmux = new AgentTmux();
    tmux.accept = () => {
      tmux.panes.delete('%1');
      return false;
    };
    const result = await createDeliverer(tmux, fast).deliver(request(tmux));
    expect(result).toMatchObject({ type: 'delivered', confirmed: false });
  });
});

describe('waiting to type', () => {
  it('types nothing while the agent works, and lands once it is idle', async () => {
    const tmux = new AgentTmux();
    const states: AgentStateName[] = ['working', 'working', 'approval', 'idle'];
    const result = await createDeliverer(tmux, fast).deliver(
      request(tmux, {
        readState: () => {
          if (states.length > 1) expect(tmux.sent).toEqual([]);
          return Promise.resolve(states.shift() ?? 'idle');
        },
      }),
    );
    expect(result).toMatchObject({ type: 'delivered', confirmed: true });
    expect(states).toEqual([]);
  });

  it('types into an `unknown` screen only once it has been quiet', async () => {
    const tmux = new AgentTmux();
    let typedAt = 0;
    let changes = 0;
    const started = Date.now();
    const ticker = setInterval(() => {
      if (changes < 5) {
        changes += 1;
        tmux.transcript.push(`output ${changes}`);
        tmux.render();
      }
    }, 10);
    const result = await typeWatched(
      tmux,
      request(tmux, {
        readState: () => Promise.resolve('unknown'),
        classify: () => 'unknown',
        unknownQuietMs: QUIET_MS,
      }),
      {
        beforeType: () => {
          typedAt = Date.now();
        },
      },
    );
    clearInterval(ticker);
    expect(result.type).toBe('delivered');
    expect(changes).toBe(5);
    expect(typedAt - started).toBeGreaterThanOrEqual(QUIET_MS);
  });

  it('types into an `unknown` screen at once unless asked to wait', async () => {
    const tmux = new AgentTmux();
    const result = await createDeliverer(tmux, fast).deliver(
      request(tmux, { readState: () => Promise.resolve('unknown') }),
    );
    expect(result).toMatchObject({
      type: 'delivered',
      waitedMs: expect.any(Number),
    });
  });

  it('leaves copy mode first', async () => {
    const tmux = new AgentTmux();
    tmux.agent.inMode = true;
    const result = await createDeliverer(tmux, fast).deliver(request(tmux));
    expect(result.type).toBe('delivered');
    expect(tmux.cancels).toEqual(['%1']);
  });

  it('reports a dead pane without typing', async () => {
    const tmux = new AgentTmux();
    tmux.agent.dead = true;
    const result = await createDeliverer(tmux, fast).deliver(request(tmux));
    expect(result).toEqual({ type: 'pane-gone', state: 'dead' });
    expect(tmux.sent).toEqual([]);
  });
});

// Seen in the 30-kill fault test: a bridge killed while typing left its
// text on the way to the program; the next bridge read the composer at once,
// found it empty, recorded the answer unconfirmed, and the text then showed
// up and went out with the next answer. The composer is read once the pane
// has stopped changing.
describe('composerHolds after a restart', () => {
  /** A pane whose program takes the keys a killed bridge sent a while later. */
  class LateTmux extends AgentTmux {
    captures = 0;
    later: (() => void) | undefined;
    override async capturePane(pane: string): Promise<string> {
      this.captures += 1;
      if (this.captures === 3) this.later?.();
      return super.capturePane(pane);
    }
  }

  it('sees text that reaches the composer only after the first look', async () => {
    const tmux = new LateTmux();
    tmux.later = () => {
      tmux.composer = 'answer for w-r11';
      tmux.render();
    };
    expect(
      await composerHolds(tmux, '%1', 'answer for w-r11', {
        quietMs: 0,
      }),
    ).toBe(false); // the old single look
    tmux.captures = 0;
    tmux.composer = '';
    tmux.render();
    expect(
      await composerHolds(tmux, '%1', 'answer for w-r11', {
        quietMs: 20,
        pollMs: 5,
      }),
    ).toBe(true);
  });

  it('sees a submit key that is taken only after the first look', async () => {
    const tmux = new LateTmux();
    tmux.composer = 'answer for w-r11';
    tmux.render();
    tmux.later = () => {
      tmux.transcript.push(`> ${tmux.composer}`);
      tmux.composer = '';
      tmux.render();
    };
    expect(
      await composerHolds(tmux, '%1', 'answer for w-r11', {
        quietMs: 20,
        pollMs: 5,
      }),
    ).toBe(false);
  });
});
