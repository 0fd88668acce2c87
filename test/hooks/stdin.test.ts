import { describe, expect, it } from 'vitest';
import {
  HOOK_STDIN_MAX_BYTES,
  raceTimeout,
  readHookInput,
} from '../../src/hooks/stdin.js';

const unread = () => Promise.reject(new Error('stdin must not be read'));

describe('readHookInput', () => {
  it('takes the payload argument (Codex) without reading stdin', async () => {
    expect(
      await readHookInput({
        payload: '{"type":"agent-turn-complete"}',
        stdinIsTTY: false,
        readStdin: unread,
      }),
    ).toBe('{"type":"agent-turn-complete"}');
    expect(
      await readHookInput({ payload: '', stdinIsTTY: true, readStdin: unread }),
    ).toBe('');
  });

  it('reads nothing from a terminal', async () => {
    expect(await readHookInput({ stdinIsTTY: true, readStdin: unread })).toBe(
      '',
    );
  });

  it('reads stdin with its size bound', async () => {
    const asked: (number | undefined)[] = [];
    const text = await readHookInput({
      stdinIsTTY: false,
      readStdin: (maxBytes) => {
        asked.push(maxBytes);
        return Promise.resolve('{"session_id":"s"}');
      },
    });
    expect(text).toBe('{"session_id":"s"}');
    expect(asked).toEqual([HOOK_STDIN_MAX_BYTES]);
  });

  it('passes a failed read on (the runner records it)', async () => {
    await expect(
      readHookInput({
        stdinIsTTY: false,
        readStdin: () => Promise.reject(new Error('input longer than 8 MB')),
      }),
    ).rejects.toThrow('input longer than 8 MB');
  });
});

describe('raceTimeout', () => {
  it('gives the value when it comes in time', async () => {
    expect(await raceTimeout(Promise.resolve(42), 1000, 'late')).toBe(42);
  });

  it('fails with the message when it does not', async () => {
    const never = new Promise<string>(() => undefined);
    await expect(raceTimeout(never, 20, 'stdin did not end')).rejects.toThrow(
      'stdin did not end',
    );
  });
});
