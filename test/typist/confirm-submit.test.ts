import { describe, expect, it } from 'vitest';
import { composerProbe } from '../../src/typist/composer.js';
import { preferHook, watchSubmit } from '../../src/typist/confirm-submit.js';
import {
  DEFAULT_DELIVERY_RULES,
  type DeliveryRequest,
} from '../../src/typist/typist.js';
import { readPaneView } from '../../src/typist/pane-composer.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

const timing = { confirmTimeoutMs: 40, confirmPollMs: 2 };
const TEXT = 'run the whole test suite';

/** A pane with TEXT waiting in its composer, and a request for it. */
async function setup(extra: Partial<DeliveryRequest> = {}) {
  const tmux = new FakeTmuxClient();
  const pane = tmux.addPane({
    id: '%1',
    screen: `hello\n❯ ${TEXT}\n`,
    cursorX: 2 + TEXT.length,
    cursorY: 1,
  });
  const request: DeliveryRequest = {
    pane: '%1',
    text: TEXT,
    rules: DEFAULT_DELIVERY_RULES,
    readState: () => Promise.resolve('idle'),
    confirm: { retries: 2 },
    ...extra,
  };
  const before = await readPaneView(tmux, '%1');
  const watch = () =>
    watchSubmit(tmux, request, before, composerProbe(TEXT), timing);
  return { tmux, pane, request, before, watch };
}

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
