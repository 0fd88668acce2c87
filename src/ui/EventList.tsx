import { Box, Text } from 'ink';
import { Cell } from './Cell.js';
import type { EventRowData } from './view-model.js';

export interface EventListProps {
  rows: readonly EventRowData[];
  /** The width of the view: narrow terminals drop the agent, then the summary. */
  width: number;
}

/** Narrower than this: no agent column. */
const EVENT_AGENT_MIN_WIDTH = 70;
/** Narrower than this: the type takes the rest of the line, no summary. */
const EVENT_SUMMARY_MIN_WIDTH = 40;

/** Recent events, newest last. */
export function EventList({ rows, width }: EventListProps) {
  const showAgent = width >= EVENT_AGENT_MIN_WIDTH;
  const showSummary = width >= EVENT_SUMMARY_MIN_WIDTH;
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate">
        RECENT EVENTS
      </Text>
      {rows.map((row) => (
        <Box key={row.key}>
          <Cell width={8} text={row.time} dim />
          {showAgent ? <Cell width={12} text={row.agent} /> : null}
          {showSummary ? (
            <>
              <Cell width={22} text={row.type} colour={row.colour} />
              <Cell
                text={[row.requestId, row.summary].filter(Boolean).join('  ')}
                dim
              />
            </>
          ) : (
            <Cell text={row.type} colour={row.colour} />
          )}
        </Box>
      ))}
    </Box>
  );
}
