import { describe, expect, it } from 'vitest';
import { composerProbe } from '../../src/typist/composer.js';
import { preferHook, watchSubmit } from '../../src/typist/confirm-submit.js';
import {
  DEFAULT_DELIVERY_RULES,
  type DeliveryRequest,
} from '../../src/typist/typist.js';
import { readPaneView } from '../../src/typist/pane-composer.js';
import type { PaneInfo } from '../../src/tmux/client.js';
import { FakeTmuxClient, type FakePane } from '../helpers/fake-tmux.js';

const timing = { confirmTimeoutMs: 40, confirmPollMs: 2 };
const TEXT = 'run the whole test suite';

/** The request for TEXT into pane %1. */
function requestFor(extra: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    pane: '%1',
    text: TEXT,
    rules: DEFAULT_DELIVERY_RULES,
    readState: () => Promise.resolve('idle'),
    confirm: { retries: 2 },
    ...extra,
  };
}

/** A pane with TEXT waiting in its composer, and a request for it. */
async function setup(extra: Partial<DeliveryRequest> = {}) {
  const tmux = new FakeTmuxClient();
  const pane = tmux.addPane({
    id: '%1',
    screen: `hello\n❯ ${TEXT}\n`,
    cursorX: 2 + TEXT.length,
    cursorY: 1,
  });
  const request = requestFor(extra);
  const before = await readPaneView(tmux, '%1');
  const watch = () =>
    watchSubmit(tmux, request, before, composerProbe(TEXT), timing);
  return { tmux, pane, request, before, watch };
}

/** A pane's screen and cursor at one reading. */
interface View {
  screen: string;
  cursorX: number;
  cursorY: number;
}

/**
 * A client whose pane shows `views` one reading after another (the last
 * one stays): a reading is the cursor, the screen, the cursor again
 * (readPaneView), and the pane moves on to the next view after it, so the
 * watch sees exactly this sequence, however fast the machine.
 */
class SteppingTmux extends FakeTmuxClient {
  private readonly pane: FakePane;
  private captured = false;
  constructor(private readonly views: View[]) {
    super();
    this.pane = this.addPane({ id: '%1', ...views[0]! });
  }
  override async capturePane(pane: string): Promise<string> {
    const screen = await super.capturePane(pane);
    this.captured = true;
    return screen;
  }
  override async paneInfo(pane: string): Promise<PaneInfo> {
    const info = await super.paneInfo(pane);
    if (this.captured && this.views.length > 1) {
      this.views.shift();
      Object.assign(this.pane, this.views[0]!);
    }
    this.captured = false;
    return info;
  }
}

/** watchSubmit over a pane that shows `views` one reading after another. */
async function watchSteps(views: View[]) {
  const tmux = new SteppingTmux(views);
  const request = requestFor();
  const before = await readPaneView(tmux, '%1');
  return watchSubmit(tmux, request, before, composerProbe(TEXT), timing);
}

/** Codex as it starts: the placeholder, then the text drawn late. */
const PLACEHOLDER = {
  screen: 'logo\n› Ask Codex to do anything\n  ? for shortcuts\n',
  cursorX: 2,
  cursorY: 1,
};
const DRAWN_LATE = {
  screen: `logo\n› ${TEXT}\n  ? for shortcuts\n`,
  cursorX: 2 + TEXT.length,
  cursorY: 1,
};
/** The same composer moved up two rows by a footer that grew under it. */
const FOOTER_GREW = {
  screen: `› ${TEXT}\n  model · folder\n\n  ⚠ 1 warning · f2 to view\n`,
  cursorX: 2 + TEXT.length,
  cursorY: 0,
};

describe('watchSubmit', () => {
  it('sees the composer let go of the text', async () => {
    const { pane, watch } = await setup();
    pane.screen = `hello\n> ${TEXT}\n❯ \n`;
    pane.cursorX = 2;
    pane.cursorY = 2;
    expect(await watch()).toBe('composer');
  });

  it('takes the same text with the cursor moved as taken (a line program)', async () => {
    const { pane, watch } = await setup();
    pane.screen = `hello\n❯ ${TEXT}\n${TEXT}\n`;
    pane.cursorX = 0;
    pane.cursorY = 3;
    expect(await watch()).toBe('composer');
  });

  it('holds a composer only redrawn elsewhere (a footer grew under it): not taken', async () => {
    const { pane, watch } = await setup();
    pane.screen = `❯ ${TEXT}\n  model · folder\n\n  ⚠ 1 warning\n`;
    pane.cursorY = 0;
    expect(await watch()).toBeUndefined();
  });

  it('text drawn only after the key (Codex still starting) is not taken, however its composer moves', async () => {
    expect(
      await watchSteps([
        PLACEHOLDER,
        // One frame drawn in parts: the text first, the cursor after it.
        { ...DRAWN_LATE, cursorX: 2 },
        DRAWN_LATE,
        FOOTER_GREW,
      ]),
    ).toBeUndefined();
  });

  it('text drawn late, then let go: taken', async () => {
    expect(
      await watchSteps([
        PLACEHOLDER,
        DRAWN_LATE,
        { screen: `› ${TEXT}\n\n› \n`, cursorX: 2, cursorY: 2 },
      ]),
    ).toBe('composer');
  });

  it('sees the agent turn working, and its hook first of all', async () => {
    const working = await setup({
      classify: (screen) =>
        screen.includes('esc to interrupt') ? 'working' : 'idle',
    });
    working.pane.screen += 'esc to interrupt\n';
    expect(await working.watch()).toBe('working');
    const hooked = await setup({
      confirm: { retries: 2, confirmed: () => true },
    });
    expect(await hooked.watch()).toBe('hook');
  });

  it('counts any change when the text was not to be seen', async () => {
    const { tmux, pane, request } = await setup();
    pane.screen = 'a program that does not echo\n';
    const before = await readPaneView(tmux, '%1');
    pane.screen = 'a program that does not echo\nthanks\n';
    expect(
      await watchSubmit(tmux, request, before, composerProbe(TEXT), timing),
    ).toBe('screen');
  });

  it('gives up after the timeout when nothing changes, and says gone for a dead pane', async () => {
    const still = await setup();
    const started = Date.now();
    expect(await still.watch()).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(
      timing.confirmTimeoutMs,
    );
    const dying = await setup();
    dying.pane.dead = true;
    expect(await dying.watch()).toBe('gone');
  });
});

describe('preferHook', () => {
  it('keeps the screen sign when there is no hook to wait for', async () => {
    const { request } = await setup();
    expect(await preferHook(request, 'composer', 2)).toBe('composer');
    const noWait = await setup({
      confirm: { retries: 2, confirmed: () => true },
    });
    expect(await preferHook(noWait.request, 'composer', 2)).toBe('composer');
  });

  it('takes the hook when it reports within preferConfirmedMs', async () => {
    let hookSaw = false;
    setTimeout(() => {
      hookSaw = true;
    }, 10);
    const { request } = await setup({
      confirm: { retries: 2, confirmed: () => hookSaw, preferConfirmedMs: 500 },
    });
    expect(await preferHook(request, 'screen', 2)).toBe('hook');
  });

  it('keeps the screen sign when the hook stays silent', async () => {
    const { request } = await setup({
      confirm: { retries: 2, confirmed: () => false, preferConfirmedMs: 20 },
    });
    expect(await preferHook(request, 'working', 2)).toBe('working');
  });
});
