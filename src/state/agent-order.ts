/**
 * Pure: the order agents are listed in at every door. Names are compared
 * with their numbers as numbers, so a fleet of `a1`…`a32` reads `a1, a2, …,
 * a10` rather than `a1, a10, a11, …, a2`; the same at any LANG (the
 * collation is fixed, not the machine's).
 */
const collator = new Intl.Collator('en', { numeric: true });

/** Compare two agent names (`a2` before `a10`, `h1/a9` before `h1/a10`). */
export function compareAgentNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
