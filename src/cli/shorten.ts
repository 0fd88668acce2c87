/**
 * A command line shortened for a one-line summary: whole when it fits;
 * else cut at the last space that keeps at least half of `max` and marked
 * `…`, or, with no such space, cut at the column and marked `…`. Never cut
 * silently, never longer than `max` characters.
 */
export function shortenCommandLine(
  argv: readonly string[],
  max: number,
): string {
  const text = argv.join(' ');
  const chars = [...text];
  if (chars.length <= max) return text;
  const room = chars.slice(0, Math.max(0, max - 1)).join('');
  const space = room.lastIndexOf(' ');
  const cut = space >= max / 2 ? room.slice(0, space) : room;
  return `${cut}…`;
}
