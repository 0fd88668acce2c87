// Applying a screen approval's decision against an in-memory tmux: the keys
// are pressed only on the same dialog in the same program, once, and the
// shared memory keeps readings from before the keys from raising it again.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createDialogApply,
  type ApplyDialog,
} from '../../../src/bridge/approvals/dialog-apply.js';
import {
  dialogApprovalRecord,
  type DialogMemory,
} from '../../../src/bridge/approvals/dialog-checks.js';
import { getPreset } from '../../../src/config/presets/index.js';
import type { EventInput } from '../../../src/events/types.js';
import { classifyScreen } from '../../../src/screen/classify.js';
import { readDialog } from '../../../src/screen/dialog.js';
import { recordStep } from '../../../src/state/ledger.js';
import { createSerialQueue } from '../../../src/state/serial.js';
import { DEFAULT_DELIVERY_RULES } from '../../../src/typist/typist.js';
import { freshAgentState } from '../../../src/state/store.js';
import type {
  AgentStateFile,
  RequestRecord,
} from '../../../src/state/types.js';
import { FakeTmuxClient, type FakePane } from '../../helpers/fake-tmux.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DIALOG_SCREEN = readFileSync(
  path.join(
    ROOT,
    'test/fixtures/screens/codex/approval/run-command-dialog-0.169.0.txt',
  ),
  'utf8',
);
const preset = getPreset('codex', {});
const dialog = (() => {
  if (!preset.dialog) throw new Error('codex has a dialog');
  return preset.dialog;
})();

class KeyRecordingTmux extends FakeTmuxClient {
  readonly keys: string[] = [];
  /** What the screen shows once a key is pressed. */
  afterKey: string | undefined;
  override async sendKey(pane: string, key?: string): Promise<void> {
    await super.sendKey(pane);
    this.keys.push(String(key));
    const found = this.panes.get(pane);
    if (found && this.afterKey !== undefined) found.screen = this.afterKey;
  }
}

describe('dialog apply', () => {
  let tmux: KeyRecordingTmux;
  let pane: FakePane;
  let state: AgentStateFile;
  let events: Omit<EventInput, 'agent'>[];
  let memory: DialogMemory;
  let paused: boolean;
  let apply: ApplyDialog;

  beforeEach(() => {
    tmux = new KeyRecordingTmux();
    pane = tmux.addPane({ screen: DIALOG_SCREEN, currentCommand: 'codex' });
    state = freshAgentState('w-1', 'codex');
    events = [];
    memory = { settled: undefined, lastActionAt: 0 };
    paused = false;
    apply = createDialogApply(
      {
        agent: 'w-1',
        pane: pane.id,
        session: undefined,
        profile: {
          preset: 'codex',
          rules: DEFAULT_DELIVERY_RULES,
          dialog,
          classify: (screen) => classifyScreen(screen, preset).state,
        },
        tmux,
        serial: createSerialQueue(),
        current: () => state,
        emit: (event) => {
          events.push(event);
          return Promise.resolve();
        },
        saveNow: () => Promise.resolve(),
      },
      {
        confirmMs: 300,
        isPaused: () => paused,
        steps: {
          closeUnanswered: (record, _stage, reason) => {
            record.stage = 'expired';
            record.closed = { reason, by: 'bridge', at: '' };
            delete state.requests[record.id];
            return Promise.resolve();
          },
          finish: (record) => {
            delete state.requests[record.id];
            return Promise.resolve();
          },
        },
      },
      memory,
    );
  });

  function answered(text: string): RequestRecord {
    const reading = readDialog(DIALOG_SCREEN, dialog);
    if (!reading) throw new Error('the fixture shows the dialog');
    const record = dialogApprovalRecord({
      id: 'w-1-approval-1',
      agent: 'w-1',
      pane: pane.id,
      panePid: pane.pid,
      command: 'codex',
      reading,
      detectedAt: new Date().toISOString(),
    });
    record.stage = 'answered';
    record.response = {
      instructions: text,
      notes: '',
      source: 'controller:%9',
      receivedAt: '',
      raw: text,
    };
    state.requests[record.id] = record;
    return record;
  }

  const types = () => events.map((e) => e.type);

  it('deny presses the deny key, records the decision and confirms it', async () => {
    const record = answered('deny: not now');
    tmux.afterKey = '› ';
    const before = Date.now();
    await apply(record, new AbortController().signal);
    expect(tmux.keys).toEqual(['Escape']);
    expect(record.stage).toBe('confirmed');
    expect(record.decision).toMatchObject({
      decision: 'deny',
      decidedBy: 'controller',
      via: 'controller:%9',
      reason: 'deny: not now',
    });
    expect(types()).toEqual([
      'request.delivering',
      'request.delivered',
      'request.confirmed',
    ]);
    expect(events[1]?.data).toEqual({
      method: 'dialog-keys',
      keys: ['Escape'],
      decision: 'deny',
      decidedBy: 'controller',
      via: 'controller:%9',
    });
    expect(state.counters.delivered).toBe(1);
    expect(state.requests).toEqual({});
    expect(memory.settled).toBe(record.approval?.fingerprint);
    expect(memory.lastActionAt).toBeGreaterThanOrEqual(before);
  });

  it('nothing is pressed for a request not answered, or called off', async () => {
    const record = answered('allow');
    record.stage = 'routed';
    await apply(record, new AbortController().signal);
    record.stage = 'answered';
    const calledOff = new AbortController();
    calledOff.abort();
    await apply(record, calledOff.signal);
    expect(tmux.keys).toEqual([]);
    expect(events).toEqual([]);
  });

  it('a paused delivery waits, then looks at the dialog anew', async () => {
    const record = answered('allow');
    paused = true;
    const done = apply(record, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toEqual([]);
    pane.screen = '› ';
    paused = false;
    await done;
    expect(tmux.keys).toEqual([]);
    expect(record.stage).toBe('expired');
    expect(record.closed?.reason).toBe(
      'the dialog is no longer on the screen; nothing was pressed',
    );
    // The dialog is settled: the same one is not raised again while it shows.
    expect(memory.settled).toBe(record.approval?.fingerprint);
  });

  it('a late dialog cannot move back a request recorded meanwhile', async () => {
    // The bug (issue 23): the dialog's keys assigned `delivered`, then
    // `confirmed`, straight onto the record, whatever another writer had
    // recorded while the keys were pressed. Strategy: while the key is
    // pressed, another writer (a restart's recordUnconfirmed, its finish
    // still queued) records the request `unconfirmed`; the dialog's late
    // steps are refused by the ledger's table and say so in events.
    const record = answered('deny: no');
    const press = tmux.sendKey.bind(tmux);
    tmux.sendKey = async (target, key) => {
      await press(target, key);
      recordStep(record, { type: 'unconfirmed' });
      pane.screen = '› ';
    };
    await apply(record, new AbortController().signal);
    expect(record.stage).toBe('unconfirmed');
    expect(types()).toEqual([
      'request.delivering',
      'request.step-refused',
      'request.step-refused',
    ]);
    expect(events.slice(1).map((e) => e.data)).toEqual([
      { step: 'delivered', from: 'unconfirmed', to: 'delivered' },
      { step: 'confirmed', from: 'unconfirmed', to: 'confirmed' },
    ]);
  });

  it('a key that fails is recorded unconfirmed, never pressed again', async () => {
    const record = answered('allow');
    tmux.sendKey = () => Promise.reject(new Error('no server'));
    await apply(record, new AbortController().signal);
    expect(record.stage).toBe('unconfirmed');
    expect(events.at(-1)).toMatchObject({
      type: 'delivery.unconfirmed',
      data: { reason: 'pressing Enter failed: no server' },
    });
    expect(
      events.find((e) => e.type === 'request.delivered')?.data,
    ).toMatchObject({ keys: [] });
  });
});
