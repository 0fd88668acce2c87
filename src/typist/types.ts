/**
 * The typist's types: what a typing is asked (DeliveryRequest), how it is
 * confirmed, what it returns. Apart from typist.ts so that its phases
 * (wait-typeable.ts, confirm-submit.ts) take them without importing it.
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

export interface DeliveryRequest {
  pane: string;
  text: string;
  rules: DeliveryRules;
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
  /** Report (once) that the agent has been busy longer than this. */
  deliverTimeoutMs?: number;
  onWaitingTooLong?: (
    state: AgentStateName,
    waitedMs: number,
  ) => void | Promise<void>;
  /**
   * Called after waiting, right before the first keystroke. Resolving to
   * `false` types nothing (someone else delivered the text: the agent's Stop
   * hook) and the result is `aborted`.
   */
  beforeType?: () => void | boolean | Promise<void | boolean>;
  /** Called once the text is in the pane, before the submit key. */
  afterPaste?: () => void | Promise<void>;
  /** Called right before the submit key is pressed the first time. */
  beforeSubmit?: () => void | Promise<void>;
  /** Called once the submit key has been pressed the first time. */
  onSubmitted?: (delivery: {
    method: 'paste' | 'literal';
    chars: number;
    waitedMs: number;
  }) => void | Promise<void>;
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
  | { type: 'aborted' };

export interface Deliverer {
  /** Deliver text to a pane; deliveries to one pane run one at a time, in order. */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}
