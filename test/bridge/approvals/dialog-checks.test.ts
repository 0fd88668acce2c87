import { isDialogApproval } from '../../../src/bridge/requests/check-origin.js';
import { describe, expect, it } from 'vitest';
import {
  DIALOG_TOOL,
  dialogApprovalRecord,
  dialogDetectedData,
  fingerprintOf,
  isDefinite,
  isNewDialog,
  paneBlocker,
  programAttribute,
  recordBlocker,
  screenBlocker,
  staleReason,
} from '../../../src/bridge/approvals/dialog-checks.js';
import { hashBody } from '../../../src/protocol/ids.js';
import type { DialogReading } from '../../../src/screen/dialog.js';
import type { RequestRecord } from '../../../src/state/types.js';
import type { PaneInfo } from '../../../src/tmux/client.js';

const AT = '2025-01-01T12:00:00.000Z';
const reading: DialogReading = {
  name: 'permission',
  text: 'Would you like to run the following command?\n\n  $ touch  a.txt\n\n› 1. Yes, proceed',
  fingerprint: '0123456789abcdef',
};
const other: DialogReading = { ...reading, fingerprint: 'fedcba9876543210' };

function raised(fields: Partial<RequestRecord> = {}): RequestRecord {
  return {
    ...dialogApprovalRecord({
      id: 'w-1-approval-1',
      agent: 'w-1',
      pane: '%3',
      panePid: 4242,
      command: 'codex',
      reading,
      detectedAt: AT,
    }),
    ...fields,
  };
}

function paneInfo(fields: Partial<PaneInfo> = {}): PaneInfo {
  return {
    id: '%3',
    pid: 4242,
    dead: false,
    deadStatus: undefined,
    inMode: false,
    width: 80,
    height: 24,
    piped: true,
    currentCommand: 'codex',
    title: '',
    windowName: 'agents',
    sessionName: 'macs',
    agentTag: 'w-1',
    pipeTag: '',
    ...fields,
  };
}

describe('dialog approval (pure)', () => {
  it('raises a detected high-priority approval for the dialog seen', () => {
    const record = dialogApprovalRecord({
      id: 'w-1-approval-1',
      agent: 'w-1',
      pane: '%3',
      panePid: 4242,
      command: 'node /usr/bin/codex',
      session: 's1',
      reading,
      detectedAt: AT,
    });
    expect(record).toEqual({
      id: 'w-1-approval-1',
      agent: 'w-1',
      type: 'approval',
      priority: 'high',
      attributes: {
        type: 'approval',
        origin: 'screen',
        dialog: 'permission',
        fingerprint: reading.fingerprint,
        program: 'node__usr_bin_codex',
      },
      approval: {
        source: 'screen',
        tool: DIALOG_TOOL,
        subject:
          'Would you like to run the following command?\n$ touch a.txt\n› 1. Yes, proceed',
        fingerprint: reading.fingerprint,
      },
      bodyHash: hashBody(reading.text),
      body: reading.text,
      stage: 'detected',
      detectedAt: AT,
      origin: 'screen',
      pane: '%3',
      panePid: 4242,
      session: 's1',
    });
    expect(isDialogApproval(record)).toBe(true);
    expect(isDialogApproval({ ...record, origin: 'hook' })).toBe(false);
    expect(dialogDetectedData(record, 77)).toEqual({
      type: 'approval',
      priority: 'high',
      origin: 'screen',
      attributes: record.attributes,
      fingerprint: reading.fingerprint,
      chars: reading.text.length,
      bodyHash: record.bodyHash,
      logOffset: 77,
    });
  });

  it('names a program safely, and finds a fingerprint where it was kept', () => {
    expect(programAttribute('codex')).toBe('codex');
    expect(programAttribute('')).toBe('_');
    expect(programAttribute('x'.repeat(80))).toHaveLength(64);
    const { approval: _approval, ...rebuilt } = raised();
    expect(fingerprintOf(rebuilt)).toBe(reading.fingerprint);
  });

  it('a reading is definite when it shows a dialog or a state without one', () => {
    expect(isDefinite(reading, 'approval')).toBe(true);
    expect(isDefinite(undefined, 'idle')).toBe(true);
    expect(isDefinite(undefined, 'dead')).toBe(true);
    expect(isDefinite(undefined, 'unknown')).toBe(false);
    expect(isDefinite(undefined, 'approval')).toBe(false);
  });

  it('an open approval ends when a definite reading shows another dialog or none', () => {
    expect(staleReason(raised(), reading, 'approval')).toBeUndefined();
    expect(staleReason(raised(), undefined, 'unknown')).toBeUndefined();
    expect(staleReason(raised(), other, 'approval')).toMatch(
      /changed before a decision; nothing was pressed/,
    );
    expect(staleReason(raised(), undefined, 'idle')).toMatch(
      /left the screen before a decision .*reads idle\); nothing was pressed/,
    );
    // An answered one is checked when it is applied, not here.
    expect(
      staleReason(raised({ stage: 'answered' }), undefined, 'idle'),
    ).toBeUndefined();
    expect(
      staleReason(raised({ stage: 'routed' }), undefined, 'idle'),
    ).toBeDefined();
  });

  it('a dialog is new unless settled or asked already', () => {
    expect(isNewDialog(reading, undefined, [])).toBe(true);
    expect(isNewDialog(reading, reading.fingerprint, [])).toBe(false);
    expect(isNewDialog(reading, undefined, [raised()])).toBe(false);
    expect(isNewDialog(other, reading.fingerprint, [raised()])).toBe(true);
  });

  it('never applies a decision it cannot check', () => {
    expect(recordBlocker(raised())).toBeUndefined();
    const { panePid: _pid, ...rebuilt } = raised();
    expect(recordBlocker(rebuilt)).toMatch(/not known/);
    expect(
      recordBlocker(
        raised({ approval: undefined, attributes: { origin: 'screen' } }),
      ),
    ).toBe('no fingerprint was kept for this dialog');
  });

  it('applies only to the same program in the same pane', () => {
    const record = raised();
    const asker = {
      agent: 'w-1',
      pane: '%3',
      ...(record.panePid !== undefined ? { panePid: record.panePid } : {}),
      ...(record.session !== undefined ? { session: record.session } : {}),
    };
    expect(paneBlocker(record, asker, paneInfo())).toBeUndefined();
    expect(paneBlocker(record, asker, undefined)).toBe('pane %3 is gone');
    expect(paneBlocker(record, asker, paneInfo({ dead: true }))).toBe(
      'the program in pane %3 ended',
    );
    expect(paneBlocker(record, asker, paneInfo({ agentTag: 'w-2' }))).toBe(
      "pane %3 is now tagged for agent 'w-2'",
    );
    expect(paneBlocker(record, asker, paneInfo({ pid: 1 }))).toMatch(
      /runs another program \(pid 1\)/,
    );
    expect(
      paneBlocker(record, asker, paneInfo({ currentCommand: 'bash' })),
    ).toMatch(/now runs bash/);
  });

  it('applies only to the same dialog on the screen', () => {
    expect(screenBlocker(raised(), reading)).toBeUndefined();
    expect(screenBlocker(raised(), undefined)).toBe(
      'the dialog is no longer on the screen',
    );
    expect(screenBlocker(raised(), other)).toBe(
      'the dialog on the screen changed since it was asked',
    );
  });
});
