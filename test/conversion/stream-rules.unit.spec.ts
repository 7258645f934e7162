/**
 * The stream rule checkers catch what they claim to: each known violation from docs/wire-formats.md §3.8 is
 * reported (a checker that passes everything would prove nothing).
 */
import { describe, expect, it } from 'vitest';
import { checkAnthropicStream } from './support/anthropic-stream-rules.ts';
import { checkOpenAIStream } from './support/openai-stream-rules.ts';
import type { ParsedEvent } from './support/sse.ts';

const openAI = (...payloads: Array<object | string>): ParsedEvent[] =>
  payloads.map((payload) => ({
    event: undefined,
    data: typeof payload === 'string' ? payload : JSON.stringify(payload),
  }));
const chunk = (delta: object, finishReason: string | null = null, index = 0) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index, delta, finish_reason: finishReason }],
});
const anthropic = (...payloads: object[]): ParsedEvent[] =>
  payloads.map((payload) => ({ event: (payload as { type: string }).type, data: JSON.stringify(payload) }));
const start = {
  type: 'message_start',
  message: { id: 'msg', content: [], usage: { input_tokens: 1, output_tokens: 0 } },
};
const end = [
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
  { type: 'message_stop' },
];

describe('OpenAI stream rules', () => {
  it('accepts a well-formed stream', () => {
    const events = openAI(
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hi' }),
      chunk({}, 'stop'),
      '[DONE]',
    );
    expect(checkOpenAIStream(events, { includeUsage: false }).violations).toEqual([]);
  });

  it.each([
    [
      'repeated role (pitfall 17)',
      [chunk({ role: 'assistant' }), chunk({ role: 'assistant' }), chunk({}, 'stop'), '[DONE]'],
      /role repeated/,
    ],
    ['choice index 1 (pitfall 2)', [chunk({ role: 'assistant' }, 'stop', 1), '[DONE]'], /choice index 1/],
    [
      'tool index from the block index (pitfall 1)',
      [
        chunk({
          role: 'assistant',
          tool_calls: [{ index: 1, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }],
        }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      /tool index 1 skips/,
    ],
    [
      'tool id repeated (pitfall 17)',
      [
        chunk({
          role: 'assistant',
          tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }],
        }),
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      /repeats its id/,
    ],
    ['two finish reasons', [chunk({ role: 'assistant' }, 'stop'), chunk({}, 'stop'), '[DONE]'], /2 finish reasons/],
    [
      'usage chunk unasked (pitfall 8)',
      [chunk({ role: 'assistant' }, 'stop'), { ...chunk({}), choices: [], usage: { prompt_tokens: 1 } }, '[DONE]'],
      /usage chunk sent unasked/,
    ],
    ['no [DONE]', [chunk({ role: 'assistant' }, 'stop')], /no \[DONE\]/],
  ])('reports %s', (_name, payloads, violation) => {
    const { violations } = checkOpenAIStream(openAI(...(payloads as object[])), { includeUsage: false });
    expect(violations.join('\n')).toMatch(violation);
  });

  it('reports a usage chunk without choices: [] (pitfall 8) and event: lines', () => {
    const events: ParsedEvent[] = [
      { event: 'chunk', data: JSON.stringify(chunk({ role: 'assistant' }, 'stop')) },
      { event: undefined, data: JSON.stringify({ ...chunk({}), usage: { prompt_tokens: 1 } }) },
      { event: undefined, data: '[DONE]' },
    ];
    const text = checkOpenAIStream(events, { includeUsage: true }).violations.join('\n');
    expect(text).toMatch(/has an event: line/);
    expect(text).toMatch(/usage chunk without choices: \[\]/);
  });
});

describe('Anthropic stream rules', () => {
  const text = (index: number) => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
  const textDelta = (index: number) => ({
    type: 'content_block_delta',
    index,
    delta: { type: 'text_delta', text: 'x' },
  });
  const stop = (index: number) => ({ type: 'content_block_stop', index });

  it('accepts a well-formed stream', () => {
    expect(checkAnthropicStream(anthropic(start, text(0), textDelta(0), stop(0), ...end)).violations).toEqual([]);
  });

  it.each([
    ['a duplicate message_start (pitfall 5)', [start, start, ...end], /second message_start/],
    ['a gap in block indexes (pitfall 3)', [start, text(1), textDelta(1), stop(1), ...end], /not contiguous/],
    [
      'thinking_delta in a text block (pitfall 4)',
      [
        start,
        text(0),
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'x' } },
        stop(0),
        ...end,
      ],
      /thinking_delta in a text block/,
    ],
    ['two blocks open at once', [start, text(0), textDelta(0), text(1), ...end], /starts while 0 is open/],
    ['an empty text block (pitfall 6)', [start, text(0), stop(0), ...end], /empty text block/],
    [
      'end_turn with a tool_use block (pitfall 6)',
      [
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
        },
        stop(0),
        ...end,
      ],
      /tool_use block but stop_reason end_turn/,
    ],
    [
      'an invalid tool_use id (pitfall 11)',
      [
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'functions.f:0', name: 'f', input: {} },
        },
        stop(0),
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } },
        { type: 'message_stop' },
      ],
      /tool_use id functions\.f:0 invalid/,
    ],
    [
      'a message_delta without output_tokens',
      [start, { type: 'message_delta', delta: {}, usage: {} }],
      /no usage\.output_tokens/,
    ],
  ])('reports %s', (_name, payloads, violation) => {
    expect(checkAnthropicStream(anthropic(...(payloads as object[]))).violations.join('\n')).toMatch(violation);
  });

  it('reports an event without its event: line', () => {
    const events: ParsedEvent[] = [{ event: undefined, data: JSON.stringify(start) }];
    expect(checkAnthropicStream(events).violations.join('\n')).toMatch(/no event: line/);
  });
});
