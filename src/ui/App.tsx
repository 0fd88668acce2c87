import { Box, Text, useApp, useInput, type Key } from 'ink';
import { useCallback, useMemo, useRef, useState } from 'react';
import { errorMessage } from '../errors.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import { AgentTable } from './AgentTable.js';
import { AnswerEditor, ANSWER_EDITOR_CHROME } from './AnswerEditor.js';
import { Mark } from './Cell.js';
import { DetailPanel } from './DetailPanel.js';
import { EventList } from './EventList.js';
import { wrapText } from './view-format.js';
import { HelpPanel } from './HelpPanel.js';
import { selectIncompleteRows } from './incomplete-rows.js';
import { InboxList } from './InboxList.js';
import type {
  HostLinkRow,
  IntentResult,
  SnapshotSource,
  StatusIntents,
} from '../operations/view-intents.js';
import { COMPACT_KEY_BAR_ROWS, KeyBar, packKeyBar } from './KeyBar.js';
import {
  ANSWER_KEYS,
  BROWSE_KEYS,
  INITIAL_UI_STATE,
  reduceInput,
  resolveSelection,
  type KeyPress,
  type UiEffect,
  type UiState,
} from './keys.js';
import {
  agentColumns,
  FIXED_LINES,
  fitColumns,
  planLayout,
  requestColumns,
  type PanelKind,
} from './view-layout.js';
import {
  intentMessage,
  msUntilViewChanges,
  shownMessage,
  stampMessage,
} from './message.js';
import { toneColour } from './theme.js';
import { useNow, useSnapshot, useTerminalSize } from './use-snapshot.js';
import {
  buildDetailLines,
  selectAgentRows,
  selectItems,
  selectRefusedRows,
  selectRequestRows,
  selectUsageTotal,
} from './view-model.js';

export interface AppProps {
  source: SnapshotSource;
  intents: StatusIntents;
  /** Fixed terminal size (tests); otherwise the terminal's, following resizes. */
  columns?: number;
  rows?: number;
  /** A fixed clock (tests); otherwise it moves when an age on screen changes. */
  now?: number;
  /** Time zone of event times (default: local). */
  timeZone?: string;
}

/** ink's key event -> the reducer's KeyPress. */
function toKeyPress(input: string, key: Key): KeyPress {
  return {
    input,
    upArrow: key.upArrow,
    downArrow: key.downArrow,
    pageUp: key.pageUp,
    pageDown: key.pageDown,
    return: key.return,
    escape: key.escape,
    backspace: key.backspace,
    delete: key.delete,
    ctrl: key.ctrl,
    meta: key.meta && !key.escape,
    tab: key.tab,
  };
}

/** Smaller terminals get one line saying so. */
const MIN_COLUMNS = 20;
const MIN_ROWS = 5;

const clamp = (n: number, lo: number, hi: number) =>
  Math.min(hi, Math.max(lo, n));

function Header({
  snapshot,
  hosts,
  width,
}: {
  snapshot: Snapshot;
  hosts: readonly HostLinkRow[];
  width: number;
}) {
  const t = snapshot.totals;
  const down = hosts.some((h) => h.link === 'down');
  return (
    <Box width={width}>
      <Mark text="macs status  " colour="cyan" bold />
      <Box flexGrow={1} flexShrink={1} flexBasis={0}>
        <Text wrap="truncate">
          {`${t.agents} agent${t.agents === 1 ? '' : 's'} · ${t.pending} pending`}
          {t.waitingForPerson > 0 ? (
            <Text color="yellow" bold>
              {` · ${t.waitingForPerson} need${t.waitingForPerson === 1 ? 's' : ''} you`}
            </Text>
          ) : null}
          {t.paused > 0 ? (
            <Text color="yellow">{` · ${t.paused} paused`}</Text>
          ) : null}
          {snapshot.session.status === 'server-gone' ? (
            <Text color="red" bold>
              {' · tmux server gone: macs start --resume'}
            </Text>
          ) : null}
          {hosts.length > 0 ? (
            <Text
              {...(down ? { color: 'red' } : {})}
            >{` · hosts: ${hosts.map((h) => h.line).join(', ')}`}</Text>
          ) : null}
          <Text dimColor>{`  ${snapshot.home}`}</Text>
        </Text>
      </Box>
    </Box>
  );
}

/** The status view: agents, pending requests, detail or answer, recent events, keys. */
export function App(props: AppProps) {
  const { exit } = useApp();
  const snapshot = useSnapshot(props.source);
  const [ui, setUi] = useState<UiState>(INITIAL_UI_STATE);
  const uiRef = useRef(ui);
  // The clock moves when an age on screen changes, or the message ages out.
  const now = useNow(props.now, (at) =>
    msUntilViewChanges(snapshot, ui.message, at),
  );
  const { columns, rows } = useTerminalSize({
    columns: props.columns,
    rows: props.rows,
  });
  const items = useMemo(
    () => (snapshot ? selectItems(snapshot) : []),
    [snapshot],
  );
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const { intents } = props;

  const { source } = props;
  // A new message is stamped with the time and the session it is said in,
  // so that it goes when it no longer holds (message.ts).
  const update = useCallback(
    (next: UiState) => {
      const stamped = stampMessage(next, uiRef.current, {
        at: Date.now(),
        session: source.current()?.session.id ?? null,
      });
      uiRef.current = stamped;
      setUi(stamped);
    },
    [source],
  );

  /** Show what an intent did; an answer written speaks of its request until delivered. */
  const report = useCallback(
    (result: IntentResult, requestId?: string) =>
      update({ ...uiRef.current, message: intentMessage(result, requestId) }),
    [update],
  );

  const runEffect = useCallback(
    async (effect: UiEffect): Promise<void> => {
      switch (effect.type) {
        case 'quit':
          exit(effect.interrupted ? 'interrupted' : 'quit');
          return;
        case 'answer':
          report(
            await intents.answer(effect.requestId, effect.text),
            effect.requestId,
          );
          return;
        case 'edit': {
          const item = itemsRef.current.find(
            (i) => i.kind === 'request' && i.request.id === effect.requestId,
          );
          if (item?.kind !== 'request') {
            report({ ok: false, message: `${effect.requestId} is gone` });
            return;
          }
          report(await intents.editAnswer(item.request), effect.requestId);
          return;
        }
        case 'set-paused':
          report(await intents.setPaused(effect.agent, effect.paused));
          return;
        case 'dismiss':
          report(await intents.dismiss(effect.requestId));
          return;
        case 'jump':
          report(await intents.jumpToPane(effect.agent, effect.pane));
          return;
        default: {
          const never: never = effect;
          throw new Error(`unexpected effect ${JSON.stringify(never)}`);
        }
      }
    },
    [exit, intents, report],
  );

  useInput((input, key) => {
    const result = reduceInput(
      uiRef.current,
      toKeyPress(input, key),
      itemsRef.current,
    );
    update(result.state);
    for (const effect of result.effects)
      void runEffect(effect).catch((error: unknown) =>
        report({ ok: false, message: errorMessage(error) }),
      );
  });

  if (!snapshot)
    return <Text dimColor>macs status: reading the state of this home…</Text>;

  if (columns < MIN_COLUMNS || rows < MIN_ROWS)
    return (
      <Box width={Math.max(1, columns)}>
        <Text wrap="truncate">{`macs status needs ${MIN_COLUMNS}x${MIN_ROWS} at least (this terminal: ${columns}x${rows})`}</Text>
      </Box>
    );
  const width = columns;
  const answering = ui.mode.type === 'answer';
  const { item } = resolveSelection(ui, items);
  const selectedKey = item?.key;
  const panel: PanelKind | undefined =
    ui.mode.type === 'help'
      ? 'help'
      : ui.mode.type === 'answer'
        ? 'answer'
        : ui.detailOpen
          ? 'detail'
          : undefined;
  const detailLines =
    panel === 'detail' ? buildDetailLines(item, width, now) : [];
  const answerText = ui.mode.type === 'answer' ? ui.mode.text : '';
  const panelWant =
    panel === 'help'
      ? 1 + BROWSE_KEYS.length + ANSWER_KEYS.length
      : panel === 'answer'
        ? ANSWER_EDITOR_CHROME +
          wrapText(`${answerText}█`, Math.max(4, width - 4)).length
        : panel === 'detail'
          ? 1 + detailLines.length
          : 0;
  const compactKeys = rows < COMPACT_KEY_BAR_ROWS;
  // The header, the message line and the line kept free come first: on a
  // tiny terminal the key bar gets what is left (`?` lists every key).
  const keyLines = Math.max(
    1,
    Math.min(
      packKeyBar(answering, width, compactKeys).length,
      rows - 1 - FIXED_LINES,
    ),
  );
  const refusedRows = selectRefusedRows(snapshot, now);
  const incompleteRows = selectIncompleteRows(snapshot, now);
  const plan = planLayout({
    rows,
    agents: snapshot.agents.length,
    requests:
      snapshot.requests.length + incompleteRows.length + refusedRows.length,
    events: snapshot.events.length,
    panel,
    panelWant,
    keyBarLines: keyLines,
  });
  const agentRows = selectAgentRows(snapshot, now);
  const longestName = Math.max(5, ...agentRows.map((r) => [...r.name].length));
  // The name and the state are always shown: on a narrow terminal the
  // name gives way so that the row still fits.
  const agentCols = fitColumns(
    agentColumns(
      Math.min(clamp(longestName, 6, 16), Math.max(4, width - 2 - 9)),
    ),
    width - 2,
  );
  const requestCols = fitColumns(
    requestColumns(clamp(longestName, 6, 14)),
    width - 3,
  );
  const usageTotal = selectUsageTotal(snapshot);
  const answeringRequest =
    ui.mode.type === 'answer'
      ? snapshot.requests.find(
          (r) => ui.mode.type === 'answer' && r.id === ui.mode.requestId,
        )
      : undefined;
  const detailTitle =
    item?.kind === 'request'
      ? `DETAIL request ${item.request.id}  (enter/esc closes)`
      : item?.kind === 'agent'
        ? `DETAIL agent ${item.agent.name}  (enter/esc closes)`
        : 'DETAIL';
  const message = shownMessage(ui.message, snapshot, now);

  return (
    <Box flexDirection="column" width={width}>
      <Header
        snapshot={snapshot}
        hosts={props.source.hosts?.() ?? []}
        width={width}
      />
      {plan.showAgents ? (
        <AgentTable
          rows={agentRows}
          columns={agentCols}
          selectedKey={selectedKey}
          maxRows={plan.agentRows}
          {...(usageTotal ? { usageTotal } : {})}
        />
      ) : null}
      {plan.showRequests ? (
        <InboxList
          rows={selectRequestRows(snapshot, now)}
          incomplete={incompleteRows}
          refused={refusedRows}
          columns={requestCols}
          selectedKey={selectedKey}
          maxRows={plan.requestRows}
        />
      ) : null}
      {plan.panelLines > 0 && panel === 'help' ? (
        <HelpPanel height={plan.panelLines} />
      ) : null}
      {plan.panelLines > 0 && panel === 'detail' ? (
        <DetailPanel
          title={detailTitle}
          lines={detailLines}
          height={plan.panelLines}
        />
      ) : null}
      {plan.panelLines > 0 && ui.mode.type === 'answer' ? (
        <AnswerEditor
          requestId={ui.mode.requestId}
          agent={ui.mode.agent}
          question={answeringRequest?.firstLine ?? '(no longer pending)'}
          text={ui.mode.text}
          width={width}
          height={plan.panelLines}
        />
      ) : null}
      {plan.showEvents ? (
        <EventList
          events={snapshot.events}
          limit={plan.eventRows}
          timeZone={props.timeZone}
          width={width}
        />
      ) : null}
      <Text
        wrap="truncate"
        {...(message ? { color: toneColour(message.tone) } : {})}
      >
        {message ? message.text : ' '}
      </Text>
      <KeyBar
        answering={answering}
        width={width}
        compact={compactKeys}
        maxLines={keyLines}
      />
    </Box>
  );
}
