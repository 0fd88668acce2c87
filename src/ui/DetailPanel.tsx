import { Box, Text } from 'ink';
import type { DetailLine, DetailTone } from './view-model.js';

export interface DetailPanelProps {
  title: string;
  lines: readonly DetailLine[];
  /** Lines available, the title included. */
  height: number;
}

function toneProps(tone: DetailTone) {
  switch (tone) {
    case 'title':
      return { bold: true };
    case 'dim':
      return { dimColor: true };
    case 'attention':
      return { color: 'yellow', bold: true };
    case 'notes':
      return { color: 'magenta' };
    case 'text':
      return {};
    default: {
      const never: never = tone;
      return never;
    }
  }
}

/** The selected row in full: body, context, answers and notes. */
export function DetailPanel({ title, lines, height }: DetailPanelProps) {
  const room = Math.max(0, height - 1);
  const shown =
    lines.length > room
      ? [
          ...lines.slice(0, Math.max(0, room - 1)),
          {
            text: `… ${lines.length - room + 1} more lines (a taller terminal shows more)`,
            tone: 'dim' as const,
          },
        ]
      : lines;
  return (
    <Box flexDirection="column">
      <Text bold color="cyan" wrap="truncate">
        {title}
      </Text>
      {shown.map((line, i) => (
        <Text key={i} wrap="truncate" {...toneProps(line.tone)}>
          {line.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
