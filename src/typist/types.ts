/**
 * The typist's types: what a typing is asked (DeliveryRequest), how it is
 * confirmed, what each phase returns (Typing) and what a whole delivery
 * returns. Apart from typist.ts so that its phases (wait-typeable.ts,
 * confirm-submit.ts) take them without importing it.
 */
import type { AgentStateName } from '../config/states.js';

/** How text is typed into one kind of agent (from its preset). */
export interface DeliveryRules {
  submitKey: string;
  submitDelayMs: number;
  /** Paste bracketed (`paste-buffer -p`) so newlines do not submit early. */
  bracketed: boolean;
  /** A single line up to this many characters is typed with `send-keys -l`. */
  maxLiteralChars: number;
  /**
   * A screen no rule reads (`unknown`) may be typed into: a program macs
   * has no preset for. False for a known agent (preset `knownScreens`).
   */
  typeIntoUnknown: boolean;
  /**
   * A shell agent: typed into only while the shell itself is the pane's
   * foreground program (`shellTakesInput` in wait-typeable.ts), never into a
   * command it runs. Its screen cannot tell: `sleep 20` prints nothing.
   */
  shellPromptOnly?: boolean;
}

/** Confirming a submission (SPEC §6 step 6). */
export interface ConfirmOptions {
  /** How often the submit key is pressed again when nothing shows it was taken. */
  retries: number;
  /** Another sign the agent took the text (its UserPromptSubmit hook). */
  confirmed?: () => boolean;
  /**
   * When the screen shows the text was taken, wait up to this long for
   * `confirmed` too, so an agent whose hooks report prompts is confirmed by
   * its hook (hooks win over the screen).
   */
  preferConfirmedMs?: number;
}

/**
 * Who asked for the text (an answer's request, SPEC §6): the process group
 * that held the pane's terminal when the request was read (`pgid`), its
 * command for people, and whether it was the shell at its prompt.
 */
export interface DeliveryAsker {
  pgid: number;
  command: string;
  shell: boolean;
}

/** Why a typing waits (wait-typeable.ts formatWaitReason puts it in words). */
export type WaitReason =
  /** A person paused deliveries to the agent. */
  | { type: 'paused' }
  /** The agent's state allows no typing (working, a dialog, error…). */
  | { type: 'state'; state: AgentStateName }
  /** A shell runs a command (`running`) instead of waiting at its prompt. */
  | { type: 'shell-busy'; running: string }
  /** Another program (`running`) holds the terminal than the one that asked. */
  | { type: 'other-program'; running: string; asker: string }
  /** The program that asked holds the terminal but is running, not reading. */
  | { type: 'asker-busy'; asker: string }
  /** A screen no rule reads must stay still a moment first. */
  | { type: 'screen-changing' }
  /** The pane's processes could not be read (who holds the terminal is unknown). */
  | { type: 'unreadable' };

export interface DeliveryRequest {
  pane: string;
  text: string;
  rules: DeliveryRules;
  /**
   * An answer's asker: the text goes only to that process group while it
   * holds the terminal (and, for a shell, only at its prompt); when it has
   * ended, the wait ends `asker-gone`. Absent: any program the screen and
   * `rules` allow (a person's `macs send`).
   */
  asker?: DeliveryAsker;
  /** Say why the wait goes on once it has lasted this long (`waiting`). */
  waitReportMs?: number;
  /** The agent's current state (read from its screen, hooks...). */
  readState: () => Promise<AgentStateName>;
  /**
   * The preset's screen rules: after the submit key they tell whether the
   * agent turned `working` (a confirmation).
   */
  classify?: (screen: string) => AgentStateName;
  /**
   * Type into `unknown` only once the screen has not changed for this long
   * (default 0: at once). `readState` must read the pane afresh each time
   * it is called when the text may be typed on its word.
   */
  unknownQuietMs?: number;
  /** Confirm the submission and re-send the submit key (off when absent). */
  confirm?: ConfirmOptions;
  /** Delivery to this agent is paused by a person. */
  isPaused?: () => boolean;
  /**
   * Report (once) that the agent has been busy longer than this: the wait
   * phase returns a `busy` result, and goes on when called again.
   */
  deliverTimeoutMs?: number;
  /** Give up waiting (the bridge is stopping). */
  signal?: AbortSignal;
}

/** What showed that the agent took a submission. */
export type ConfirmSignal =
  /** The screen turned `working` (or showed a dialog the prompt led to). */
  | 'working'
  /** The composer no longer holds the text that was typed. */
  | 'composer'
  /** The text was not to be seen, and the screen or the cursor changed. */
  | 'screen'
  /** The agent's own hook said so. */
  | 'hook';

export type DeliveryResult =
  | {
      type: 'delivered';
      method: 'paste' | 'literal';
      chars: number;
      waitedMs: number;
      /** Times the submit key was pressed. */
      submits?: number;
      /** With `confirm`: whether the agent was seen taking the text. */
      confirmed?: boolean;
      confirmation?: ConfirmSignal;
    }
  | { type: 'empty' }
  | { type: 'pane-gone'; state: AgentStateName }
  /** The program that asked has ended: nothing was typed. */
  | { type: 'asker-gone'; asker: string }
  | { type: 'aborted' };

/** How text goes in: one paste, or `send-keys -l` for a short line. */
export type TypingMethod = 'paste' | 'literal';

/** The wait phase: the agent may be typed into now, or why not. */
export type WaitResult =
  | { phase: 'waited'; waitedMs: number }
  /** Busy longer than `deliverTimeoutMs` (once): wait again to go on. */
  | { phase: 'busy'; state: AgentStateName; waitedMs: number }
  /** Why the wait goes on (after `waitReportMs`, and when it changes): wait again to go on. */
  | { phase: 'waiting'; reason: WaitReason; waitedMs: number }
  /** The program that asked (`asker`) has ended: nothing is to be typed. */
  | { phase: 'asker-gone'; asker: string }
  /** Nothing left to type once sanitized: nothing was waited for. */
  | { phase: 'empty' }
  | { phase: 'gone' }
  | { phase: 'aborted' };

/** The text is in the pane (not submitted yet), or the pane went away. */
export type TypeResult =
  { phase: 'typed'; method: TypingMethod; chars: number } | { phase: 'gone' };

/** The preset's submit delay is over: the key may be pressed now. */
export type SubmitDueResult = { phase: 'due' } | { phase: 'gone' };

/**
 * The submit key was pressed once (the text may be in: it is never typed
 * again). `watchable`: a confirmation can be watched for (asked, and the
 * pane's program was still running just before the key).
 */
export type SubmitResult =
  | {
      phase: 'submitted';
      method: TypingMethod;
      chars: number;
      waitedMs: number;
      submits: number;
      watchable: boolean;
    }
  | { phase: 'gone' };

/** Whether the agent was seen taking the text, and how many presses it took. */
export type ConfirmResult =
  | { phase: 'confirmed'; confirmation: ConfirmSignal; submits: number }
  | { phase: 'unconfirmed'; submits: number };

/**
 * One turn at a pane, phase by phase; each phase returns what happened and
 * the caller records it before asking for the next. Call them in order:
 * `waitTypeable` (again after `busy`), `type`, `awaitSubmit`, `submit`,
 * then `confirm` when the submission is `watchable`; `end` in any case.
 */
export interface Typing {
  waitTypeable(): Promise<WaitResult>;
  type(): Promise<TypeResult>;
  awaitSubmit(): Promise<SubmitDueResult>;
  submit(): Promise<SubmitResult>;
  confirm(): Promise<ConfirmResult>;
  /** Let the next typing into this pane begin. */
  end(): void;
}

export interface Deliverer {
  /**
   * Take this pane's turn (typings into one pane run one at a time, in
   * order) and return its phases; the caller calls `end` when done.
   */
  begin(request: DeliveryRequest): Promise<Typing>;
  /** Every phase in a row, a long wait unreported: the whole delivery. */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}
