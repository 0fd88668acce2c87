/**
 * `key=value` attribute lists of protocol markers (SPEC §2). Pure.
 */
import { ATTRIBUTE_VALUE } from './ids.js';

/** What an attribute key may look like. */
export const ATTRIBUTE_KEY = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

export interface DroppedAttribute {
  key: string;
  value: string;
  reason: 'bad-value' | 'bad-key' | 'duplicate';
}

/**
 * Splits whitespace-separated `key=value` tokens. A token with a bad key, a
 * bad value (or none: a token without `=`) or a key already kept is dropped
 * and reported; nothing invalid reaches `attributes`. `check` may reject a
 * well-formed value of a known key.
 */
export function parseAttributes(
  text: string,
  check: (key: string, value: string) => boolean = () => true,
): { attributes: Record<string, string>; dropped: DroppedAttribute[] } {
  const attributes: Record<string, string> = {};
  const dropped: DroppedAttribute[] = [];
  for (const token of text.split(/\s+/)) {
    if (token === '') continue;
    const eq = token.indexOf('=');
    const key = eq < 0 ? token : token.slice(0, eq);
    const value = eq < 0 ? '' : token.slice(eq + 1);
    if (!ATTRIBUTE_KEY.test(key)) {
      dropped.push({ key, value, reason: 'bad-key' });
    } else if (!ATTRIBUTE_VALUE.test(value) || !check(key, value)) {
      dropped.push({ key, value, reason: 'bad-value' });
    } else if (Object.hasOwn(attributes, key)) {
      dropped.push({ key, value, reason: 'duplicate' });
    } else {
      attributes[key] = value;
    }
  }
  return { attributes, dropped };
}
