import { describe, expect, it } from 'vitest';
import {
  findResponseBlocks,
  splitResponse,
} from '../../src/protocol/response.js';

const SPEC_EXAMPLE = [
  '<<CONTROLLER_RESPONSE id=q-17>>',
  'WORKER INSTRUCTIONS:',
  'Migrate after the API change. First finish the endpoint tests.',
  '',
  'NOTES:',
  'The worker keeps asking about ordering; consider a plan file.',
  '<<CONTROLLER_RESPONSE_END>>',
].join('\n');

describe('splitResponse', () => {
  it('splits the SPEC example', () => {
    expect(splitResponse(SPEC_EXAMPLE)).toEqual({
      id: 'q-17',
      instructions:
        'Migrate after the API change. First finish the endpoint tests.',
      notes: 'The worker keeps asking about ordering; consider a plan file.',
      hasMarkers: true,
    });
  });

  it('treats text with no headers as all instructions', () => {
    expect(splitResponse('\n  Do the thing.  \n\nThen the other.\n\n')).toEqual(
      {
        instructions: '  Do the thing.  \n\nThen the other.',
        notes: '',
        hasMarkers: false,
      },
    );
  });

  it.each([
    ['WORKER INSTRUCTIONS:', 'NOTES:'],
    ['worker instructions:', 'notes:'],
    ['Worker Instructions:', 'Notes:'],
    ['**Worker Instructions:**', '**Notes:**'],
    ['**WORKER INSTRUCTIONS**:', '**NOTES**:'],
    ['__Worker Instructions__', '__Notes__'],
    ['# WORKER INSTRUCTIONS:', '# NOTES:'],
    ['## Worker Instructions', '## Notes'],
    ['###### **Worker Instructions:**', '###### **Notes:**'],
    ['  WORKER INSTRUCTIONS:  ', '   NOTES:   '],
    ['Worker instruction:', 'NOTES :'],
  ])('recognizes the headers %j and %j', (instructionsHeader, notesHeader) => {
    const text = `${instructionsHeader}\nDo X.\n${notesHeader}\nSecret.\n`;
    expect(splitResponse(text)).toEqual({
      instructions: 'Do X.',
      notes: 'Secret.',
      hasMarkers: false,
    });
  });

  it.each([
    'Notes',
    'NOTES: inline text',
    'Some notes:',
    'Worker instructions follow',
    '**Notes on the approach**',
  ])('does not take %j for a header', (line) => {
    const text = `WORKER INSTRUCTIONS:\nDo X.\n${line}\nDo Y.`;
    expect(splitResponse(text).instructions).toBe(`Do X.\n${line}\nDo Y.`);
  });

  it('keeps notes out of instructions when there is no instructions header', () => {
    expect(splitResponse('Do X.\nDo Y.\n\nNOTES:\nprivate thought\n')).toEqual({
      instructions: 'Do X.\nDo Y.',
      notes: 'private thought',
      hasMarkers: false,
    });
  });

  it('handles notes before instructions', () => {
    expect(
      splitResponse('NOTES:\nfirst a note\nWORKER INSTRUCTIONS:\nDo X.'),
    ).toEqual({
      instructions: 'Do X.',
      notes: 'first a note',
      hasMarkers: false,
    });
  });

  it('sends text before the instructions header to the notes, not the worker', () => {
    expect(
      splitResponse(
        'Sure, here is my answer.\n\nWORKER INSTRUCTIONS:\nDo X.\n\nNOTES:\nN.',
      ),
    ).toEqual({
      instructions: 'Do X.',
      notes: 'Sure, here is my answer.\n\nN.',
      hasMarkers: false,
    });
  });

  it('gives empty instructions for an empty instructions section', () => {
    expect(
      splitResponse('WORKER INSTRUCTIONS:\n\n   \nNOTES:\nonly notes'),
    ).toMatchObject({
      instructions: '',
      notes: 'only notes',
    });
  });

  it("normalizes CRLF and keeps each line's own spaces", () => {
    const text =
      '<<CONTROLLER_RESPONSE id=a>>\r\nWORKER INSTRUCTIONS:\r\n  step one  \r\n\tstep two\t\r\n\r\nNOTES:\r\nn \r\n<<CONTROLLER_RESPONSE_END>>\r\n';
    expect(splitResponse(text)).toEqual({
      id: 'a',
      instructions: '  step one  \n\tstep two\t',
      notes: 'n ',
      hasMarkers: true,
    });
  });

  it('uses the first complete block and ignores text around it', () => {
    const text = [
      'chatter before',
      '<<CONTROLLER_RESPONSE id=one>>',
      'first answer',
      '<<CONTROLLER_RESPONSE_END>>',
      '<<CONTROLLER_RESPONSE id=two>>',
      'second answer',
      '<<CONTROLLER_RESPONSE_END>>',
    ].join('\n');
    expect(splitResponse(text)).toEqual({
      id: 'one',
      instructions: 'first answer',
      notes: '',
      hasMarkers: true,
    });
  });

  it('has no id for a block without one, or with an invalid one', () => {
    const plain = splitResponse(
      '<<CONTROLLER_RESPONSE>>\nx\n<<CONTROLLER_RESPONSE_END>>',
    );
    expect(plain).toEqual({ instructions: 'x', notes: '', hasMarkers: true });
    expect('id' in plain).toBe(false);
    const bad = splitResponse(
      '<<CONTROLLER_RESPONSE id=../../etc/passwd>>\nx\n<<CONTROLLER_RESPONSE_END>>',
    );
    expect(bad.id).toBeUndefined();
    expect(bad.instructions).toBe('x');
  });

  it('removes stray markers when no block is complete', () => {
    expect(splitResponse('<<CONTROLLER_RESPONSE id=a>>\nDo X.\n')).toEqual({
      instructions: 'Do X.',
      notes: '',
      hasMarkers: false,
    });
  });

  it('sends everything with noSplit, markers removed', () => {
    expect(splitResponse(SPEC_EXAMPLE, { noSplit: true })).toEqual({
      id: 'q-17',
      instructions: [
        'WORKER INSTRUCTIONS:',
        'Migrate after the API change. First finish the endpoint tests.',
        '',
        'NOTES:',
        'The worker keeps asking about ordering; consider a plan file.',
      ].join('\n'),
      notes: '',
      hasMarkers: true,
    });
  });

  it('finds a block written on one line', () => {
    expect(
      splitResponse(
        '<<CONTROLLER_RESPONSE id=x>>Do it.<<CONTROLLER_RESPONSE_END>>',
      ),
    ).toEqual({ id: 'x', instructions: 'Do it.', notes: '', hasMarkers: true });
  });
});

describe('findResponseBlocks', () => {
  it('finds every complete block in order', () => {
    const text = [
      'noise',
      '<<CONTROLLER_RESPONSE id=a type=x>>',
      'A',
      '<<CONTROLLER_RESPONSE_END>>',
      '<<CONTROLLER_RESPONSE id=broken>>',
      'never closed, restarted',
      '⏺ <<CONTROLLER_RESPONSE id=b>>',
      '  B1',
      '  B2',
      '  <<CONTROLLER_RESPONSE_END>>',
      '<<CONTROLLER_RESPONSE id=c>>',
      'unterminated',
    ].join('\r\n');
    expect(findResponseBlocks(text)).toEqual([
      { id: 'a', attributes: { id: 'a', type: 'x' }, content: 'A' },
      { id: 'b', attributes: { id: 'b' }, content: '  B1\n  B2' },
    ]);
  });

  it('drops invalid attributes', () => {
    expect(
      findResponseBlocks(
        '<<CONTROLLER_RESPONSE id="q" ok=1 x>>\nA\n<<CONTROLLER_RESPONSE_END>>',
      ),
    ).toEqual([{ attributes: { ok: '1' }, content: 'A' }]);
  });

  it('does not take the end marker for a start', () => {
    expect(
      findResponseBlocks(
        '<<CONTROLLER_RESPONSE_END>>\nA\n<<CONTROLLER_RESPONSE_END>>',
      ),
    ).toEqual([]);
  });

  it('gives nothing for text without markers', () => {
    expect(findResponseBlocks('WORKER INSTRUCTIONS:\nDo X.')).toEqual([]);
  });
});
