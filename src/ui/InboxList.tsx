import { Box, Text } from 'ink';
import { Cell, Mark, type CellProps } from './Cell.js';
import {
  windowRows,
  type ColumnSpec,
  type RequestColumnKey,
} from './view-layout.js';
import type { RequestRowData } from './view-model.js';

export interface RequestRowProps {
  row: RequestRowData;
  columns: readonly ColumnSpec<RequestColumnKey>[];
  selected: boolean;
}

function requestCell(
  row: RequestRowData,
  key: RequestColumnKey,
  selected: boolean,
): Omit<CellProps, 'width'> {
  const loud = row.waitingForPerson;
  switch (key) {
    case 'age':
      return {
        text: row.age,
        right: true,
        ...(loud ? { colour: 'yellow' } : {}),
      };
    case 'agent':
      return { text: row.agent, bold: selected };
    case 'type':
      return { text: row.type, dim: !loud };
    case 'status':
      return { text: row.status, colour: row.colour, bold: loud };
    case 'text':
      return { text: row.firstLine, bold: selected || loud };
    default: {
      const never: never = key;
      return never;
    }
  }
}

/** One pending request: age, agent, type, status and the first line. */
export function RequestRow({ row, columns, selected }: RequestRowProps) {
  const mark = row.waitingForPerson ? '●' : row.high ? '!' : ' ';
  return (
    <Box>
      <Mark text={selected ? '›' : ' '} bold />
      <Mark
        text={`${mark} `}
        colour={row.waitingForPerson ? 'yellow' : 'red'}
        bold
      />
      {columns.map((c) => (
        <Cell
          key={c.key}
          {...requestCell(row, c.key, selected)}
          {...(c.key === 'text' ? {} : { width: c.width })}
        />
      ))}
    </Box>
  );
}

export interface InboxListProps {
  rows: readonly RequestRowData[];
  /** Blocks without their end marker, drawn after the open ones. */
  incomplete?: readonly RequestRowData[];
  /** Requests refused for their size, drawn after those. */
  refused?: readonly RequestRowData[];
  columns: readonly ColumnSpec<RequestColumnKey>[];
  selectedKey: string | undefined;
  maxRows: number;
}

/**
 * The pending requests; those waiting for a person are marked ● in yellow.
 * Blocks shown without their end marker follow (yellow), then requests
 * refused for their size, marked ! in red.
 */
export function InboxList({
  rows,
  incomplete = [],
  refused = [],
  columns,
  selectedKey,
  maxRows,
}: InboxListProps) {
  const shown = [...rows, ...incomplete, ...refused];
  const selected = shown.findIndex((r) => r.key === selectedKey);
  const { start, end } = windowRows(
    shown.length,
    Math.max(0, selected),
    Math.max(1, maxRows),
  );
  const waiting = rows.filter((r) => r.waitingForPerson).length;
  const range =
    shown.length > end - start ? ` ${start + 1}–${end} of ${shown.length}` : '';
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {`REQUESTS (${rows.length})${range}`}
        {waiting > 0 ? (
          <Text color="yellow">{`  ● ${waiting} waiting for you`}</Text>
        ) : null}
        {incomplete.length > 0 ? (
          <Text color="yellow">{`  … ${incomplete.length} incomplete`}</Text>
        ) : null}
        {refused.length > 0 ? (
          <Text color="red">{`  ! ${refused.length} refused`}</Text>
        ) : null}
      </Text>
      <Box>
        <Mark text="   " />
        {columns.map((c) =>
          c.key === 'text' ? (
            <Cell key={c.key} text={c.title} dim />
          ) : (
            <Cell key={c.key} width={c.width} text={c.title} dim />
          ),
        )}
      </Box>
      {shown.length === 0 ? (
        <Text dimColor wrap="truncate">
          {'   No pending requests.'}
        </Text>
      ) : (
        shown
          .slice(start, end)
          .map((row) => (
            <RequestRow
              key={row.key}
              row={row}
              columns={columns}
              selected={row.key === selectedKey}
            />
          ))
      )}
    </Box>
  );
}
