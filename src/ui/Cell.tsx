import { Box, Text } from 'ink';
import type { Colour } from './theme.js';

export interface CellProps {
  text: string;
  /** Fixed width in columns; omitted: take the rest of the line. */
  width?: number;
  colour?: Colour;
  bold?: boolean;
  dim?: boolean;
  /** Right-align (numbers). */
  right?: boolean;
}

/** One table cell: a fixed-width (or growing) box, text cut with `…`. */
export function Cell({ text, width, colour, bold, dim, right }: CellProps) {
  return (
    <Box
      {...(width === undefined
        ? { flexGrow: 1, flexShrink: 1, flexBasis: 0 }
        : { width, flexShrink: 0, marginRight: 1 })}
      justifyContent={right ? 'flex-end' : 'flex-start'}
    >
      <Text
        wrap="truncate"
        {...(colour ? { color: colour } : {})}
        bold={bold ?? false}
        dimColor={dim ?? false}
      >
        {text}
      </Text>
    </Box>
  );
}

/** A fixed piece of a row (selection mark, flags) that never shrinks. */
export function Mark({
  text,
  colour,
  bold,
}: {
  text: string;
  colour?: Colour;
  bold?: boolean;
}) {
  return (
    <Box flexShrink={0}>
      <Text {...(colour ? { color: colour } : {})} bold={bold ?? false}>
        {text}
      </Text>
    </Box>
  );
}
