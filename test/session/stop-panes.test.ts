import { describe, expect, it } from 'vitest';
import {
  INTERRUPT_KEY,
  sortSessionPanes,
  stopPanes,
} from '../../src/session/stop-panes.js';
import type { SessionRecord } from '../../src/session/record.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

/** A fake tmux whose programs in `polite` panes exit at the interrupt key. */
class StoppingTmux extends FakeTmuxClient {
  readonly keys: { pane: string; key: string | undefined }[] = [];
  readonly polite = new Set<string>();
  override async sendKey(pane: string, key?: string): Promise<void> {
    await super.sendKey(pane);
    this.keys.push({ pane, key });
    const found = this.panes.get(pane);
    if (found && this.polite.has(pane)) found.dead = true;
  }
}

describe('sortSessionPanes', () => {
  it('sorts agents by their tag, and the bridge and status by the record or their window', () => {
    const tmux = new FakeTmuxClient();
    const agent = tmux.addPane({ id: '%0', agentTag: 'worker-1' });
    const stray = tmux.addPane({ id: '%1' });
    const bridge = tmux.addPane({ id: '%2', windowName: 'bridge' });
    const status = tmux.addPane({ id: '%3', windowName: 'status' });
    const renamed = tmux.addPane({ id: '%4', windowName: 'zsh' });
    const panes = [agent, stray, bridge, status, renamed];

    const named = (list: { name: string; info: { id: string } }[]) =>
      list.map((p) => [p.name, p.info.id]);
    const byWindow = sortSessionPanes(panes, undefined);
    expect(named(byWindow.agents)).toEqual([['worker-1', '%0']]);
    expect(named(byWindow.bridges)).toEqual([['bridge', '%2']]);
    expect(named(byWindow.views)).toEqual([['status', '%3']]);

    // The record knows a status pane whose window was renamed.
    const record = { panes: { bridge: '%2', status: '%4' } } as SessionRecord;
    const byRecord = sortSessionPanes(panes, record);
    expect(named(byRecord.bridges)).toEqual([['bridge', '%2']]);
    expect(named(byRecord.views)).toEqual([
      ['status', '%3'],
      ['status', '%4'],
    ]);
  });
});

describe('stopPanes (fake tmux)', () => {
  it('reports each pane as exited, killed after the grace period, or already exited', async () => {
    const tmux = new StoppingTmux();
    const polite = tmux.addPane({ id: '%0' });
    const stubborn = tmux.addPane({ id: '%1' });
    const gone = tmux.addPane({ id: '%2', dead: true });
    tmux.polite.add('%0');

    const started = Date.now();
    const stopped = await stopPanes(
      tmux,
      [
        { name: 'a', info: { ...polite } },
        { name: 'b', info: { ...stubborn } },
        { name: 'c', info: { ...gone } },
      ],
      400,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(stopped).toEqual([
      { name: 'a', pane: '%0', ended: 'exited' },
      { name: 'b', pane: '%1', ended: 'killed' },
      { name: 'c', pane: '%2', ended: 'already-exited' },
    ]);
    // The stubborn one got the interrupt key twice, then kill-pane.
    expect(tmux.keys).toEqual([
      { pane: '%0', key: INTERRUPT_KEY },
      { pane: '%1', key: INTERRUPT_KEY },
      { pane: '%1', key: INTERRUPT_KEY },
    ]);
    expect(tmux.commands).toEqual([['kill-pane', '-t', '%1']]);
  });

  it('hangs up a shell at its prompt instead of interrupting it, and a shell whose command ended at the interrupt', async () => {
    // A fake hang-up: the pane's front is a shell when its command says so;
    // the shell exits at the hang-up.
    const tmux = new StoppingTmux();
    const shell = tmux.addPane({ id: '%0', currentCommand: 'bash' });
    const busy = tmux.addPane({ id: '%1', currentCommand: 'sleep' });
    const agent = tmux.addPane({ id: '%2', currentCommand: 'node' });
    tmux.polite.add('%2');
    const hungUp: string[] = [];
    const hangUp = (info: { id: string; currentCommand: string }) => {
      if (info.currentCommand !== 'bash') return Promise.resolve(false);
      hungUp.push(info.id);
      const pane = tmux.panes.get(info.id);
      if (pane) pane.dead = true;
      return Promise.resolve(true);
    };
    // The interrupt key ends the sleep: the shell is back at its prompt.
    const sendKey = tmux.sendKey.bind(tmux);
    tmux.sendKey = async (pane, key) => {
      await sendKey(pane, key);
      if (pane === '%1') busy.currentCommand = 'bash';
    };

    const stopped = await stopPanes(
      tmux,
      [
        { name: 'shell', info: { ...shell } },
        { name: 'busy', info: { ...busy } },
        { name: 'agent', info: { ...agent } },
      ],
      60_000,
      hangUp,
    );
    expect(stopped).toEqual([
      { name: 'shell', pane: '%0', ended: 'hung-up' },
      { name: 'busy', pane: '%1', ended: 'hung-up' },
      { name: 'agent', pane: '%2', ended: 'exited' },
    ]);
    expect(hungUp).toEqual(['%0', '%1']);
    // The interrupt key went to the sleep and the agent, never to a shell
    // at its prompt.
    expect(tmux.keys).toEqual([
      { pane: '%1', key: INTERRUPT_KEY },
      { pane: '%2', key: INTERRUPT_KEY },
    ]);
    expect(tmux.commands).toEqual([]);
  });

  it('returns at once when every pane has exited already', async () => {
    const tmux = new StoppingTmux();
    const pane = tmux.addPane({ id: '%5', dead: true });
    const started = Date.now();
    expect(
      await stopPanes(tmux, [{ name: 'x', info: { ...pane } }], 10_000),
    ).toEqual([{ name: 'x', pane: '%5', ended: 'already-exited' }]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(tmux.keys).toEqual([]);
  });
});
