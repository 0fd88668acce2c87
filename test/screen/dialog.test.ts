// Screen dialogs (issue 13, part 3): each preset's permission dialog is read
// from real captures, its fingerprint ignores what moves with the pane's
// width but not what is asked, and anything else is not a dialog.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import type { PresetDialog } from '../../src/config/presets/types.js';
import { dialogKeys, readDialog } from '../../src/screen/dialog.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHARED = path.resolve(ROOT, '..', 'shared', 'fixtures', 'screens');

function capture(file: string): string {
  return readFileSync(path.join(ROOT, 'test/fixtures/screens', file), 'utf8');
}

function dialogOf(preset: string): PresetDialog {
  const dialog = getPreset(preset, {}).dialog;
  if (!dialog) throw new Error(`${preset} has no dialog`);
  return dialog;
}

describe('readDialog on real captures', () => {
  it('reads Claude Code 2.1.197 asking to run a Bash command', () => {
    const read = readDialog(
      capture('claude/approval/real-2.1.197-bash-permission.txt'),
      dialogOf('claude'),
    );
    expect(read?.text.split('\n').map((line) => line.trim())).toEqual([
      expect.stringMatching(/^─{8,}$/),
      'Bash command',
      '',
      'touch approved.txt',
      'Create it',
      '',
      'Do you want to proceed?',
      '❯ 1. Yes',
      '2. Yes, and always allow access to macs-claude-dHnKZ2/ from this project',
      '3. No',
      '',
      'Esc to cancel · Tab to amend · ctrl+e to explain',
    ]);
    expect(read?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('reads Codex 0.169.0 asking to run a command', () => {
    const read = readDialog(
      capture('codex/approval/run-command-dialog-0.169.0.txt'),
      dialogOf('codex'),
    );
    const lines = read?.text.split('\n') ?? [];
    expect(lines[0]?.trim()).toBe(
      'Would you like to run the following command?',
    );
    expect(read?.text).toContain(
      '  $ touch /tmp/macs-codex-EDaBDj/cache.sqlite',
    );
    expect(lines.at(-1)?.trim()).toBe(
      'Press enter to confirm or esc to cancel',
    );
    // The transcript above the modal is not part of it.
    expect(read?.text).not.toContain('CONTROLLER_REQUEST');
  });

  it('reads Gemini CLI 0.61.0 asking to run a shell command', () => {
    const read = readDialog(
      capture(
        'gemini/approval/gemini-0.61.0-run-shell-command-confirmation.txt',
      ),
      dialogOf('gemini'),
    );
    const lines = read?.text.split('\n') ?? [];
    expect(lines[0]).toMatch(/^╭─+╮$/);
    expect(read?.text).toContain('mkdir cache-db');
    expect(read?.text).toContain('● 1. Allow once');
    expect(lines.at(-1)).toMatch(/^╰─+╯$/);
  });

  // The shared corpus of Claude Code screens: permission dialogs are read,
  // plan menus, questions, folder trust and idle screens are not.
  const claudeShared = path.join(SHARED, 'claude');
  const sharedCases: [string, boolean][] = [
    ['approval/20260128_122950.txt', true],
    ['approval/bash-tool-call-1-2.txt', true],
    ['approval/folder_trust.txt', true],
    ['approval/proceed.txt', true],
    ['approval/plan_exit_menu_20260128_182520.txt', false],
    ['approval/plan_typer_rewrite.txt', false],
    ['approval/plan_chat.txt', false],
    ['approval/interrupted_plan_edit_20260129.txt', false],
    ['approval/start_20260128_182040.txt', false],
  ];
  it.each(sharedCases)('claude %s: a dialog: %s', (file, expected) => {
    const text = readFileSync(path.join(claudeShared, file), 'utf8');
    expect(readDialog(text, dialogOf('claude')) !== undefined).toBe(expected);
  });

  it('reads no dialog on any idle, working or error capture of a preset', () => {
    for (const preset of ['claude', 'codex', 'gemini']) {
      for (const state of ['idle', 'working', 'error']) {
        const dir = path.join(ROOT, 'test/fixtures/screens', preset, state);
        for (const file of readdirSync(dir)) {
          const text = readFileSync(path.join(dir, file), 'utf8');
          expect(
            readDialog(text, dialogOf(preset)),
            `${preset}/${state}/${file}`,
          ).toBeUndefined();
        }
      }
    }
  });
});

describe('a dialog fingerprint', () => {
  const dialog = dialogOf('claude');
  const base = capture('claude/approval/real-2.1.197-bash-permission.txt');
  const fingerprint = readDialog(base, dialog)?.fingerprint;

  it('is the same at another pane width (padding, right-aligned hints)', () => {
    const wider = base
      .split('\n')
      .map((line) => (line.startsWith('───') ? `${line}──────` : line))
      .join('\n')
      .replace('Bash command', 'Bash command          ');
    expect(readDialog(wider, dialog)?.fingerprint).toBe(fingerprint);
  });

  it('changes when what is asked changes', () => {
    const other = base.replace('   touch approved.txt', '   rm -rf approved');
    expect(readDialog(other, dialog)?.fingerprint).not.toBe(fingerprint);
  });

  it('is not read when another option is highlighted', () => {
    const moved = base
      .replace('❯ 1. Yes', '  1. Yes')
      .replace('  3. No', '❯ 3. No');
    expect(readDialog(moved, dialog)).toBeUndefined();
  });

  it('is not read when anything follows the dialog (an old one, scrolled up)', () => {
    expect(readDialog(`${base}\n❯ next prompt\n`, dialog)).toBeUndefined();
  });

  it('is not read without its top within maxLines', () => {
    expect(readDialog(base, { ...dialog, maxLines: 3 })).toBeUndefined();
  });
});

describe('dialogKeys', () => {
  it.each(['claude', 'codex', 'gemini'])(
    '%s: allow is Enter, deny is Escape',
    (preset) => {
      expect(dialogKeys(dialogOf(preset), 'allow')).toEqual(['Enter']);
      expect(dialogKeys(dialogOf(preset), 'deny')).toEqual(['Escape']);
    },
  );

  it('presets without a dialog description get no screen approvals', () => {
    for (const preset of ['shell', 'generic', 'aider', 'pi'])
      expect(getPreset(preset, {}).dialog).toBeUndefined();
  });

  it('a custom preset does not inherit its base dialog', () => {
    const custom = getPreset('mine', {
      mine: { extends: 'claude', args: ['--model', 'x'] },
    });
    expect(custom.dialog).toBeUndefined();
  });
});
