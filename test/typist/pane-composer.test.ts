import { describe, expect, it } from 'vitest';
import { composerHolds, readPaneView } from '../../src/typist/pane-composer.js';
import { PaneNotFoundError } from '../../src/tmux/client.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

/** A pane whose composer holds `typed`, the cursor just after it. */
function paneWith(typed: string) {
  const tmux = new FakeTmuxClient();
  const pane = tmux.addPane({
    id: '%1',
    screen: `hello\n❯ ${typed}\n`,
    cursorX: 2 + [...typed].length,
    cursorY: 1,
  });
  return { tmux, pane };
}

describe('readPaneView', () => {
  it('reads the screen, the composer before the cursor, and the cursor', async () => {
    const { tmux, pane } = paneWith('run the tests');
    pane.inMode = true;
    expect(await readPaneView(tmux, '%1')).toEqual({
      screen: 'hello\n❯ run the tests\n',
      composer: '❯runthetests',
      cursor: '15,1',
      cursorRow: '❯runthetests',
      dead: false,
      inMode: true,
    });
  });

  it('shows a dead pane as empty', async () => {
    const { tmux, pane } = paneWith('text');
    pane.dead = true;
    expect(await readPaneView(tmux, '%1')).toEqual({
      screen: '',
      composer: '',
      cursor: '',
      cursorRow: '',
      dead: true,
      inMode: false,
    });
  });

  it('takes a pane gone between its info and its capture as a blank screen', async () => {
    class Vanishing extends FakeTmuxClient {
      override capturePane(pane: string): Promise<string> {
        return Promise.reject(new PaneNotFoundError(pane, "can't find pane"));
      }
    }
    const tmux = new Vanishing();
    tmux.addPane({ id: '%1', cursorX: 0, cursorY: 0 });
    expect(await readPaneView(tmux, '%1')).toMatchObject({
      screen: '',
      composer: '',
      dead: false,
    });
  });

  it('reads again when the cursor moved while the screen was read (a redraw between them)', async () => {
    // The composer moves up two rows between the cursor and the screen:
    // the cursor read first points at a blank row of the new screen.
    class Redrawing extends FakeTmuxClient {
      captures = 0;
      override async capturePane(pane: string): Promise<string> {
        const screen = await super.capturePane(pane);
        this.captures += 1;
        if (this.captures === 1) {
          Object.assign(moving, {
            screen: '› Say noted.\n  footer\n\n',
            cursorY: 0,
          });
          return moving.screen;
        }
        return screen;
      }
    }
    const tmux = new Redrawing();
    const moving = tmux.addPane({
      id: '%1',
      screen: 'logo\n\n› Say noted.\n',
      cursorX: 12,
      cursorY: 2,
    });
    expect(await readPaneView(tmux, '%1')).toMatchObject({
      composer: '›Saynoted.',
      cursor: '12,0',
      cursorRow: '›Saynoted.',
    });
    expect(tmux.captures).toBe(2);
  });

  it('lets a missing pane throw', async () => {
    await expect(
      readPaneView(new FakeTmuxClient(), '%9'),
    ).rejects.toBeInstanceOf(PaneNotFoundError);
  });
});

describe('composerHolds', () => {
  const quick = { quietMs: 0, pollMs: 1 };

  it('sees text typed and not submitted', async () => {
    const { tmux } = paneWith('answer for w-r11');
    expect(await composerHolds(tmux, '%1', 'answer for w-r11\n', quick)).toBe(
      true,
    );
    expect(await composerHolds(tmux, '%1', 'another answer', quick)).toBe(
      false,
    );
  });

  it('is false for a dead or missing pane, and for blank text', async () => {
    const { tmux, pane } = paneWith('answer');
    expect(await composerHolds(tmux, '%1', '   \n', quick)).toBe(false);
    expect(await composerHolds(tmux, '%9', 'answer', quick)).toBe(false);
    pane.dead = true;
    expect(await composerHolds(tmux, '%1', 'answer', quick)).toBe(false);
  });

  it('reads a pane that never stops changing once maxMs has passed', async () => {
    const { tmux, pane } = paneWith('answer');
    let changes = 0;
    const ticker = setInterval(() => {
      changes += 1;
      pane.screen = `output ${changes}\n❯ answer\n`;
    }, 2);
    try {
      const started = Date.now();
      expect(
        await composerHolds(tmux, '%1', 'answer', {
          quietMs: 10_000,
          maxMs: 60,
          pollMs: 5,
        }),
      ).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      clearInterval(ticker);
    }
  });
});
