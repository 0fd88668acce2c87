import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ControlUnavailableError,
  createControlChannel,
} from '../../src/tmux/control.js';

// A tmux that cannot be started: the channel must say nothing was sent, so
// its caller runs the command another way (test/integration/ drives a real
// tmux through the channel).
const MISSING_TMUX = path.join('/nonexistent', 'macs-no-tmux', 'tmux');

describe('createControlChannel', () => {
  it('refuses an empty command before connecting (an empty line detaches)', async () => {
    const channel = createControlChannel({ tmuxPath: MISSING_TMUX });
    await expect(channel.run([])).rejects.toThrow(/empty tmux command/);
    await channel.close();
  });

  it('rejects as unavailable when tmux cannot start, and waits retryMs before trying again', async () => {
    const drops: string[] = [];
    const channel = createControlChannel({
      tmuxPath: MISSING_TMUX,
      retryMs: 60_000,
      onDrop: (reason) => drops.push(reason),
    });
    await expect(channel.run(['list-panes'])).rejects.toBeInstanceOf(
      ControlUnavailableError,
    );
    expect(drops).toHaveLength(1);
    await expect(channel.run(['list-panes'])).rejects.toThrow(
      'tmux control client unavailable',
    );
    expect(drops).toHaveLength(1);
    await channel.close();
  });

  it('rejects as unavailable once closed', async () => {
    const channel = createControlChannel({ tmuxPath: MISSING_TMUX });
    await channel.close();
    await expect(channel.run(['list-panes'])).rejects.toThrow(
      new ControlUnavailableError('control channel closed'),
    );
  });
});
