/**
 * A typist's phases played from a script, for tests of its callers (the
 * bridge's delivery, the first message): each phase returns what the script
 * says, by default what a typing that went through returns. No tmux.
 */
import type {
  ConfirmResult,
  DeliveryResult,
  SubmitDueResult,
  SubmitResult,
  TypeResult,
  Typing,
  WaitResult,
} from '../../src/typist/typist.js';

export interface PhaseScript {
  waitTypeable?: () => Promise<WaitResult>;
  type?: () => Promise<TypeResult>;
  awaitSubmit?: () => Promise<SubmitDueResult>;
  submit?: () => Promise<SubmitResult>;
  confirm?: () => Promise<ConfirmResult>;
}

const TYPED = { method: 'paste', chars: 12 } as const;

/**
 * The phases a typing takes to end with `result` (a whole delivery's
 * result): `pane-gone` and `aborted` end the wait, `delivered` goes through
 * every phase (unwatchable when it says nothing of a confirmation).
 */
export function phasesOf(result: DeliveryResult): PhaseScript {
  switch (result.type) {
    case 'empty':
      return { waitTypeable: () => Promise.resolve({ phase: 'empty' }) };
    case 'aborted':
      return { waitTypeable: () => Promise.resolve({ phase: 'aborted' }) };
    case 'pane-gone':
      return { waitTypeable: () => Promise.resolve({ phase: 'gone' }) };
    case 'asker-gone':
      return {
        waitTypeable: () =>
          Promise.resolve({ phase: 'asker-gone', asker: result.asker }),
      };
    case 'delivered': {
      const submits = result.submits ?? 1;
      return {
        waitTypeable: () =>
          Promise.resolve({ phase: 'waited', waitedMs: result.waitedMs }),
        type: () =>
          Promise.resolve({
            phase: 'typed',
            method: result.method,
            chars: result.chars,
          }),
        submit: () =>
          Promise.resolve({
            phase: 'submitted',
            method: result.method,
            chars: result.chars,
            waitedMs: result.waitedMs,
            submits: 1,
            watchable: result.confirmed !== undefined,
          }),
        confirm: () =>
          Promise.resolve(
            result.confirmed === true
              ? {
                  phase: 'confirmed',
                  confirmation: result.confirmation ?? 'screen',
                  submits,
                }
              : { phase: 'unconfirmed', submits },
          ),
      };
    }
    default: {
      const never: never = result;
      throw new Error(`unexpected result ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A Typing that plays `script`; phases it leaves out go through. `seen`
 * gets the name of each phase called, in order; `ended` is set by `end`.
 */
export function scriptedTyping(
  script: PhaseScript,
  seen: string[] = [],
): Typing & { ended: boolean } {
  const play = <T>(
    name: string,
    phase: (() => Promise<T>) | undefined,
    through: T,
  ) => {
    seen.push(name);
    return phase ? phase() : Promise.resolve(through);
  };
  const typing = {
    ended: false,
    waitTypeable: () =>
      play<WaitResult>('waitTypeable', script.waitTypeable, {
        phase: 'waited',
        waitedMs: 5,
      }),
    type: () =>
      play<TypeResult>('type', script.type, { phase: 'typed', ...TYPED }),
    awaitSubmit: () =>
      play<SubmitDueResult>('awaitSubmit', script.awaitSubmit, {
        phase: 'due',
      }),
    submit: () =>
      play<SubmitResult>('submit', script.submit, {
        phase: 'submitted',
        ...TYPED,
        waitedMs: 5,
        submits: 1,
        watchable: true,
      }),
    confirm: () =>
      play<ConfirmResult>('confirm', script.confirm, {
        phase: 'unconfirmed',
        submits: 1,
      }),
    end: () => {
      typing.ended = true;
    },
  };
  return typing;
}
