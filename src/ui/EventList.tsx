import { Box, Text } from 'ink';
import { memo } from 'react';
import type { EventSnapshot } from '../state/snapshot-schema.js';
import { Cell } from './Cell.js';
import { selectEventRows } from './view-model.js';

export interface EventListProps {
  /** The snapshot's events; the newest `limit` are shown. */
  events: readonly EventSnapshot[];
  limit: number;
  timeZone?: string | undefined;
  /** The width of the view: narrow terminals drop the agent, then the summary. */
  width: number;
}

/** Narrower than this: no agent column. */
const EVENT_AGENT_MIN_WIDTH = 70;
/** Narrower than this: the type takes the rest of the line, no summary. */
const EVENT_SUMMARY_MIN_WIDTH = 40;

/**
 * Recent events, newest last. Memoized: the clock moving (ages ticking)
 * draws the view again, and the events, which show no age, are not worked
 * out again unless the snapshot changed.
 */
export const EventList = memo(function EventList({
  events,
  limit,
  timeZone,
  width,
}: EventListProps) {
  const rows = selectEventRows(events, limit, timeZone);
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
});
