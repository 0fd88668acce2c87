import { Box, Text } from 'ink';
import { Cell, Mark, type CellProps } from './Cell.js';
import {
  windowRows,
  type AgentColumnKey,
  type ColumnSpec,
} from './view-layout.js';
import type { AgentRowData } from './view-model.js';

export interface AgentRowProps {
  row: AgentRowData;
  columns: readonly ColumnSpec<AgentColumnKey>[];
  selected: boolean;
}

function agentCell(
  row: AgentRowData,
  key: AgentColumnKey,
  selected: boolean,
): Omit<CellProps, 'width'> {
  switch (key) {
    case 'name':
      return { text: row.name, bold: selected };
    case 'preset':
      return { text: row.preset, dim: true };
    case 'state':
      return { text: row.state, colour: row.stateColour, bold: true };
    case 'source':
      return { text: row.source, dim: true };
    case 'since':
      return { text: row.since, right: true };
    case 'pane':
      return { text: row.pane, dim: true };
    case 'pending':
      return row.waiting > 0
        ? {
            text: String(row.pending),
            right: true,
            colour: 'yellow',
            bold: true,
          }
        : { text: String(row.pending), right: true };
    case 'delivered':
      return { text: String(row.delivered), right: true };
    case 'roundTrip':
      return { text: row.lastRoundTrip, right: true };
    case 'usage':
      return { text: row.usage, right: true, dim: row.usage === '-' };
    case 'flags':
      return {
        text: row.flags,
        colour: row.flags.includes('paused') ? 'yellow' : 'red',
      };
    default: {
      const never: never = key;
      return never;
    }
  }
}

/** One agent: plain props in, one line out. */
export function AgentRow({ row, columns, selected }: AgentRowProps) {
  return (
    <Box>
      <Mark text={selected ? '› ' : '  '} bold />
      {columns.map((c) => (
        <Cell
          key={c.key}
          {...agentCell(row, c.key, selected)}
          {...(c.key === 'flags' ? {} : { width: c.width })}
        />
      ))}
    </Box>
  );
}

export interface AgentTableProps {
  rows: readonly AgentRowData[];
  columns: readonly ColumnSpec<AgentColumnKey>[];
  selectedKey: string | undefined;
  /** Rows that fit; the table scrolls to keep the selection in view. */
  maxRows: number;
  /** Every agent's tokens and cost together (docs/usage.md), on the heading. */
  usageTotal?: string;
}

/** The agents: name, preset, state with its source and age, pane, counts, last round trip. */
export function AgentTable({
  rows,
  columns,
  selectedKey,
  maxRows,
  usageTotal,
}: AgentTableProps) {
  const selected = rows.findIndex((r) => r.key === selectedKey);
  const { start, end } = windowRows(
    rows.length,
    Math.max(0, selected),
    Math.max(1, maxRows),
  );
  const range =
    rows.length > end - start ? ` ${start + 1}–${end} of ${rows.length}` : '';
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        AGENTS ({rows.length}){range}
        {usageTotal ? ` · total ${usageTotal}` : ''}
      </Text>
      <Box>
        <Mark text="  " />
        {columns.map((c) =>
          c.key === 'flags' ? (
            <Cell key={c.key} text="" />
          ) : (
            <Cell key={c.key} width={c.width} text={c.title} dim />
          ),
        )}
      </Box>
      {rows.length === 0 ? (
        <Text dimColor wrap="truncate">
          {
            '  No agents yet: start a bridge with `macs bridge --worker-pane %N --agent NAME`, or `macs start`.'
          }
        </Text>
      ) : (
        rows
          .slice(start, end)
          .map((row) => (
            <AgentRow
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
