/**
 * The attributes of a request block's start marker (SPEC §2): the generic
 * `key=value` rules of attributes.ts plus what a request adds, `priority`
 * limited to low|normal|high and `type` defaulting to `question`. Pure.
 */
import { parseAttributes, type DroppedAttribute } from './attributes.js';
import { shorten } from './text-limits.js';

/** An attribute left out of a request, reported with its block. */
export interface AttributeDroppedEvent extends DroppedAttribute {
  type: 'attribute-dropped';
}

const DROPPED_TEXT_MAX_CHARS = 100;

const PRIORITIES = new Set(['low', 'normal', 'high']);
const DEFAULT_TYPE = 'question';

/**
 * Parses the attribute text of a request start marker: SPEC patterns for keys
 * and values, `priority` limited to low|normal|high, `type` defaulting to
 * `question`. Invalid tokens are dropped, each with an event (key and value
 * cut to 100 characters, since they are logged); nothing invalid ever reaches
 * the returned record.
 */
export function parseRequestAttributes(text: string): {
  attributes: Record<string, string>;
  dropped: AttributeDroppedEvent[];
} {
  const parsed = parseAttributes(
    text,
    (key, value) => key !== 'priority' || PRIORITIES.has(value),
  );
  const { attributes } = parsed;
  if (!Object.hasOwn(attributes, 'type')) attributes.type = DEFAULT_TYPE;
  const dropped = parsed.dropped.map(
    ({ key, value, reason }): AttributeDroppedEvent => ({
      type: 'attribute-dropped',
      key: shorten(key, DROPPED_TEXT_MAX_CHARS),
      value: shorten(value, DROPPED_TEXT_MAX_CHARS),
      reason,
    }),
  );
  return { attributes, dropped };
}
