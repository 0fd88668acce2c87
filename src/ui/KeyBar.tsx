import { Box, Text } from 'ink';

const BROWSE_ITEMS = [
  '↑↓/jk select',
  'enter detail',
  'r answer',
  'e $EDITOR',
  'd dismiss',
  'p pause/resume',
  'a jump to pane',
  '? help',
  'q quit',
];
const ANSWER_ITEMS = [
  'Ctrl-D send',
  'Enter new line',
  'Backspace delete',
  'Ctrl-U clear line',
  'Esc cancel',
];

/** On small terminals: every key still shown, fewer words (`?` explains them). */
const BROWSE_COMPACT = [
  'keys:',
  '↑↓/jk',
  'enter',
  'r',
  'e',
  'd',
  'p',
  'a',
  '? help',
  'q quit',
];
const ANSWER_COMPACT = [
  'Ctrl-D send',
  '·',
  'Esc cancel',
  '·',
  'Enter new line',
];

/** Terminals shorter than this get the compact key bar. */
export const COMPACT_KEY_BAR_ROWS = 18;

function pack(items: readonly string[], separator: string, width: number) {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line ? `${line}${separator}${item}` : item;
    if (line && [...next].length > width) {
      lines.push(line);
      line = item;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** Pack the key list into lines of at most `width` characters. */
export function packKeyBar(
  answering: boolean,
  width: number,
  compact = false,
): string[] {
  if (compact)
    return pack(answering ? ANSWER_COMPACT : BROWSE_COMPACT, ' ', width);
  return pack(answering ? ANSWER_ITEMS : BROWSE_ITEMS, ' · ', width);
}

export interface KeyBarProps {
  answering: boolean;
  width: number;
  compact: boolean;
  /** Lines it may take (a tiny terminal shows the first ones). */
  maxLines?: number;
}

/** The keys that work now, always on screen. */
export function KeyBar({ answering, width, compact, maxLines }: KeyBarProps) {
  return (
    <Box flexDirection="column">
      {packKeyBar(answering, width, compact)
        .slice(0, maxLines)
        .map((line) => (
          <Text
            key={line}
            wrap="truncate"
            {...(answering ? { color: 'yellow' } : { dimColor: true })}
          >
            {line}
          </Text>
        ))}
    </Box>
  );
}
