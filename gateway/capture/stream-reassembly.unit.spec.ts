/**
 * A streamed reply as the client received it, reassembled into one reply in the client's format:
 * Chat Completions text, reasoning and tool calls; Messages text, thinking and a tool's input; a
 * Responses stream's final response; any other stream as its list of events.
 */
import { describe, expect, it } from 'vitest';
import { reassembleStream } from './stream-reassembly.ts';

const sse = (events: unknown[], named = false) =>
  events
    .map((data) => `${named ? `event: ${(data as { type: string }).type}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
    .join('');

describe('stream reassembly', () => {
  it('joins Chat Completions chunks into a chat.completion with reasoning and tool calls', () => {
    const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const text = `${sse([
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'think ' } }] },
      { ...head, choices: [{ index: 0, delta: { reasoning_content: 'hard' } }] },
      { ...head, choices: [{ index: 0, delta: { content: 'Hel' } }] },
      { ...head, choices: [{ index: 0, delta: { content: 'lo' } }] },
      {
        ...head,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'get', arguments: '{"a"' } }] },
          },
        ],
      },
      { ...head, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }] },
      { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { ...head, choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } },
    ])}data: [DONE]\n\n`;
    expect(reassembleStream(text)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello',
            reasoning_content: 'think hard',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    });
  });

  it('joins Messages events into a message with thinking, text and a tool input', () => {
    const text = sse(
      [
        {
          type: 'message_start',
          message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5 } },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } },
        {
          type: 'content_block_start',
          index: 2,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get', input: {} },
        },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"q":' } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"x"}' } },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
        { type: 'message_stop' },
      ],
      true,
    );
    expect(reassembleStream(text)).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 9 },
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Hi' },
        { type: 'tool_use', id: 'toolu_1', name: 'get', input: { q: 'x' } },
      ],
    });
  });

  it('takes a Responses stream final response, and lists any other stream events', () => {
    const response = { id: 'resp_1', object: 'response', status: 'completed', output: [] };
    const responses = sse(
      [
        { type: 'response.created', response: { ...response, status: 'in_progress' } },
        { type: 'response.output_text.delta', delta: 'x' },
        { type: 'response.completed', response },
      ],
      true,
    );
    expect(reassembleStream(responses)).toEqual(response);
    const gemini = sse([{ candidates: [{ content: { parts: [{ text: 'a' }] } }] }, { candidates: [] }]);
    expect(reassembleStream(gemini)).toEqual({
      events: [{ candidates: [{ content: { parts: [{ text: 'a' }] } }] }, { candidates: [] }],
    });
  });
});
