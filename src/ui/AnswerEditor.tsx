import { Box, Text } from 'ink';
import { wrapText } from './format.js';

export interface AnswerEditorProps {
  requestId: string;
  agent: string;
  question: string;
  text: string;
  width: number;
  /** Lines available, frame included. */
  height: number;
}

/** Lines the editor frame takes besides the text: title, question, border (2), tip. */
export const ANSWER_EDITOR_CHROME = 5;

/** The inline answer: multi-line text, Ctrl-D sends, Esc cancels. */
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
  const room = Math.max(1, height - ANSWER_EDITOR_CHROME);
  const shown = lines.slice(-room);
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold color="yellow" wrap="truncate">
          {`ANSWER ${requestId} (${agent})  `}
        </Text>
        <Text bold inverse>
          {' Ctrl-D send '}
        </Text>
        <Text> </Text>
        <Text inverse>{' Esc cancel '}</Text>
        <Text dimColor wrap="truncate">
          {'  Enter = new line'}
        </Text>
      </Box>
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
      <Text dimColor wrap="truncate">
        {
          'Optional parts: "WORKER INSTRUCTIONS:" (typed into the worker) and "NOTES:" (never sent).'
        }
      </Text>
    </Box>
  );
}
