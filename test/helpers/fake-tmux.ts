import { TmuxError } from '../../src/errors.js';
import { PaneNotFoundError, type TmuxClient } from '../../src/tmux/client.js';
import type { PaneInfo } from '../../src/tmux/formats.js';

export interface FakePane extends PaneInfo {
  screen: string;
  /** `#{pane_dead_signal}` when dead by a signal. */
  deadSignal?: number;
  /** Like tmux 3.3a at times: the exit is known only after another server job ends. */
  unreaped?: { status?: number; signal?: number };
  options: Record<string, string>;
}

/**
 * A working in-memory TmuxClient: panes with a screen, options and a dead
 * flag. Raw `command` calls are recorded; `display-message` of
 * `#{pane_dead_status}…` answers from the pane.
 */
export class FakeTmuxClient implements TmuxClient {
  readonly socket = 'macs-test-fake';
  readonly panes = new Map<string, FakePane>();
  readonly commands: string[][] = [];
  readonly sent: { pane: string; text: string }[] = [];
  /** A raw command whose name is here fails like tmux would. */
  failOn: string | undefined;
  private next = 0;

  addPane(fields: Partial<FakePane> = {}): FakePane {
    const id = fields.id ?? `%${this.next++}`;
    const pane: FakePane = {
      id,
      pid: 1000 + this.next,
      dead: false,
      deadStatus: undefined,
      inMode: false,
      width: 80,
      height: 24,
      piped: false,
      currentCommand: 'node',
      title: '',
      windowName: 'agents',
      sessionName: 'macs',
      agentTag: '',
      pipeTag: '',
      screen: '❯ ',
      options: {},
      ...fields,
    };
    this.panes.set(id, pane);
    return pane;
  }

  private get(pane: string): FakePane {
    const found = this.panes.get(pane);
    if (!found) throw new PaneNotFoundError(pane, "can't find pane");
    return found;
  }

  command(args: readonly string[]): Promise<string> {
    this.commands.push([...args]);
    if (args[0] === this.failOn)
      return Promise.reject(new TmuxError(`tmux ${args[0]} failed (fake)`));
    if (
      args[0] === 'new-session' ||
      args[0] === 'new-window' ||
      args[0] === 'split-window'
    ) {
      const name = args[args.indexOf('-n') + 1];
      const pane = this.addPane({
        windowName: args[0] === 'split-window' ? 'agents' : (name ?? ''),
      });
      return Promise.resolve(`${pane.id}\n`);
    }
    if (args[0] === 'kill-server') this.panes.clear();
    if (args[0] === 'run-shell') {
      for (const pane of this.panes.values()) {
        if (!pane.unreaped) continue;
        pane.deadStatus = pane.unreaped.status;
        pane.deadSignal = pane.unreaped.signal;
        delete pane.unreaped;
      }
    }
    if (args[0] === 'has-session')
      return this.panes.size > 0
        ? Promise.resolve('')
        : Promise.reject(new TmuxError('no server running (fake)'));
    if (args[0] === 'display-message') {
      const pane = this.get(args[3] ?? '');
      return Promise.resolve(
        `${pane.dead ? (pane.deadStatus ?? '') : ''}\u001f${pane.deadSignal ?? ''}\n`,
      );
    }
    return Promise.resolve('');
  }
  /**
   * Each command of the chain in order, recorded one by one as the client
   * methods do; the first that fails ends it, as in tmux. `display-message`
   * of `#{pane_pid}` prints the pane's pid.
   */
  async chain(list: readonly (readonly string[])[]): Promise<string> {
    let out = '';
    for (const args of list) {
      const [name, flag, , target = '', option = '', value = ''] = args;
      if (name === 'set-option' && flag === '-p')
        await this.setPaneOption(target, option, value);
      else if (name === 'pipe-pane' && args.length === 4)
        await this.pipePane(args[2] ?? '', args[3] ?? '');
      else if (name === 'display-message' && args[4] === '#{pane_pid}') {
        this.commands.push([...args]);
        out += `${this.get(target).pid}\n`;
      } else out += await this.command(args);
    }
    return out;
  }
  paneInfo(pane: string): Promise<PaneInfo> {
    return new Promise((resolve) => resolve({ ...this.get(pane) }));
  }
  listPanes(): Promise<PaneInfo[]> {
    return Promise.resolve([...this.panes.values()].map((p) => ({ ...p })));
  }
  async pipePane(pane: string, shellCommand: string): Promise<void> {
    this.commands.push(['pipe-pane', '-t', pane, shellCommand]);
    await this.paneInfo(pane);
    this.get(pane).piped = true;
  }
  async closePipe(pane: string): Promise<void> {
    await this.paneInfo(pane);
    this.get(pane).piped = false;
  }
  async setPaneOption(
    pane: string,
    name: string,
    value: string,
  ): Promise<void> {
    this.commands.push(['set-option', '-p', '-t', pane, name, value]);
    await this.paneInfo(pane);
    const p = this.get(pane);
    p.options[name] = value;
    if (name === '@macs_agent') p.agentTag = value;
    if (name === '@macs_pipe') p.pipeTag = value;
  }
  loadBuffer(text: string): Promise<string> {
    this.sent.push({ pane: '(buffer)', text });
    return Promise.resolve('buf');
  }
  async pasteBuffer(pane: string): Promise<void> {
    await this.paneInfo(pane);
    const last = this.sent.at(-1);
    if (last?.pane === '(buffer)') last.pane = pane;
  }
  async sendLiteral(pane: string, text: string): Promise<void> {
    await this.paneInfo(pane);
    this.sent.push({ pane, text });
  }
  async sendKey(pane: string): Promise<void> {
    await this.paneInfo(pane);
  }
  async cancelMode(pane: string): Promise<void> {
    await this.paneInfo(pane);
  }
  async capturePane(pane: string): Promise<string> {
    await this.paneInfo(pane);
    return this.get(pane).screen;
  }
  killServer(): Promise<void> {
    this.panes.clear();
    return Promise.resolve();
  }
  isServerRunning(): Promise<boolean> {
    return Promise.resolve(this.panes.size > 0);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
