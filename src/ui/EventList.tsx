import { Box, Text } from 'ink';
import { Cell } from './Cell.js';
import type { EventRowData } from './view-model.js';

export interface EventListProps {
  rows: readonly EventRowData[];
  /** Narrow terminals drop the agent column. */
  showAgent: boolean;
}

/** Recent events, newest last. */
export function EventList({ rows, showAgent }: EventListProps) {
  return (
    <Box flexDirection="column">
      <Text bold>RECENT EVENTS</Text>
      {rows.map((row) => (
        <Box key={row.key}>
          <Cell width={8} text={row.time} dim />
          {showAgent ? <Cell width={12} text={row.agent} /> : null}
          <Cell width={22} text={row.type} colour={row.colour} />
          <Cell
            text={[row.requestId, row.summary].filter(Boolean).join('  ')}
            dim
          />
        </Box>
      ))}
    </Box>
  );
}
