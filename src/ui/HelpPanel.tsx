import { Box, Text } from 'ink';
import { ANSWER_KEYS, BROWSE_KEYS } from './keys.js';

export interface HelpPanelProps {
  height: number;
}

/** Every key, with what it does. */
export function HelpPanel({ height }: HelpPanelProps) {
  const lines = [
    ...BROWSE_KEYS.map((k) => ({ ...k, group: 'view' })),
    ...ANSWER_KEYS.map((k) => ({ ...k, group: 'answer' })),
  ];
  const room = Math.max(0, height - 1);
  return (
    <Box flexDirection="column">
      <Text bold color="cyan" wrap="truncate">
        HELP (any key closes; while answering:{' '}
        {ANSWER_KEYS.map((k) => k.keys).join(', ')})
      </Text>
      {lines.slice(0, room).map((k) => (
        <Box key={`${k.group}:${k.keys}`}>
          <Box width={12} flexShrink={0}>
            <Text bold>{k.keys}</Text>
          </Box>
          <Text wrap="truncate" dimColor={k.group === 'answer'}>
            {k.group === 'answer' ? `(answering) ${k.does}` : k.does}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
