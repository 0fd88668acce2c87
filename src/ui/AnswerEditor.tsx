import { Box, Text } from 'ink';
import { wrapText } from './view-format.js';

export interface AnswerEditorProps {
  requestId: string;
  agent: string;
  question: string;
  text: string;
  width: number;
  /** Lines available, frame included. */
  height: number;
}

/**
 * Lines the editor frame takes besides the text when it has room for all of
 * it: title, question, border (2), tip.
 */
export const ANSWER_EDITOR_CHROME = 5;
/** Title, question and border: the tip goes first when the panel is short. */
const ANSWER_EDITOR_MIN_CHROME = 4;

/**
 * The inline answer: multi-line text, Ctrl-D sends, Esc cancels. It takes
 * exactly `height` lines at most, every line cut to `width`: a taller panel
 * than the layout planned pushed the view past the terminal's last line.
 */
export function AnswerEditor({
  requestId,
  agent,
  question,
  text,
  width,
  height,
}: AnswerEditorProps) {
  const inner = Math.max(4, width - 4);
  const lines = wrapText(`${text}█`, inner);
  const tip = height > ANSWER_EDITOR_MIN_CHROME + 1;
  const room = Math.max(
    1,
    height - (tip ? ANSWER_EDITOR_CHROME : ANSWER_EDITOR_MIN_CHROME),
  );
  const shown = lines.slice(-room);
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate">
        <Text bold color="yellow">{`ANSWER ${requestId} (${agent})  `}</Text>
        <Text bold inverse>
          {' Ctrl-D send '}
        </Text>
        <Text> </Text>
        <Text inverse>{' Esc cancel '}</Text>
        <Text dimColor>{'  Enter = new line'}</Text>
      </Text>
      <Text dimColor wrap="truncate">
        {`Q: ${question}`}
      </Text>
      <Box
        borderStyle="round"
        borderColor="yellow"
        flexDirection="column"
        width={Math.max(6, width)}
      >
        {shown.map((line, i) => (
          <Text key={i} wrap="truncate">
            {line || ' '}
          </Text>
        ))}
      </Box>
      {tip ? (
        <Text dimColor wrap="truncate">
          {
            'Optional parts: "WORKER INSTRUCTIONS:" (typed into the worker) and "NOTES:" (never sent).'
          }
        </Text>
      ) : null}
    </Box>
  );
}
