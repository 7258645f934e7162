/**
 * The Responses request reader (→ neutral request) and the two upstream request writers it feeds.
 */
import { describe, expect, it } from 'vitest';
import type { ResponsesRequest } from '../../contracts/openai/responses-request.ts';
import { responsesRequestSchema } from '../../contracts/openai/responses-request.ts';
import { writeMessagesRequest } from '../../gateway/providers/anthropic/write-messages-request.ts';
import { writeChatRequest } from '../../gateway/providers/openai/write-chat-request.ts';
import { readResponsesRequest } from '../../gateway/providers/responses/read-responses-request.ts';

const read = (body: Record<string, unknown>) =>
  readResponsesRequest(responsesRequestSchema.parse({ model: 'm', ...body }) as ResponsesRequest);
const refusal = (body: Record<string, unknown>) => {
  try {
    read(body);
  } catch (error) {
    return error as { status: number; param: string; message: string };
  }
  throw new Error('not refused');
};

describe('readResponsesRequest', () => {
  it('reads items into turns: consecutive items of one role form one turn, developer text joins the system', () => {
    const { request } = read({
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Use metric units.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather?' },
            { type: 'input_image', image_url: 'https://x/y.png' },
          ],
        },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Need a tool.' }], encrypted_content: 'sig' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '4' }] },
      ],
    });
    expect(request.system).toEqual(['Be brief.', 'Use metric units.']);
    expect(request.turns).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Weather?' },
          { type: 'image', url: 'https://x/y.png' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'Need a tool.', signature: 'sig' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool-result', callId: 'call_1', output: '18' },
          { type: 'tool-result', callId: 'call_2', output: '4' },
        ],
      },
    ]);
  });

  it('reads a reasoning item with only encrypted content as redacted thinking', () => {
    const { request } = read({
      input: [
        { role: 'user', content: 'hi' },
        { type: 'reasoning', summary: [], encrypted_content: 'opaque' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] },
      ],
    });
    expect(request.turns[1]!.parts).toEqual([
      { type: 'redacted-thinking', data: 'opaque' },
      { type: 'text', text: 'Hello' },
    ]);
  });

  it('drops built-in tools and their items with a warning each, and refuses forcing one or referring to items', () => {
    const { request, warnings } = read({
      input: [
        { role: 'user', content: 'hi' },
        { type: 'web_search_call', id: 'ws_1' },
        { type: 'web_search_call', id: 'ws_2' },
      ],
      tools: [{ type: 'web_search' }, { type: 'file_search', vector_store_ids: [] }],
    });
    expect(request.tools).toEqual([]);
    expect(request.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }]);
    expect(warnings).toEqual([
      'web_search_call items dropped: the channel runs no built-in tools',
      'web_search tool dropped: the channel cannot run it',
      'file_search tool dropped: the channel cannot run it',
    ]);
    expect(refusal({ input: [{ type: 'item_reference', id: 'msg_1' }] })).toMatchObject({
      status: 400,
      param: 'input[0]',
      message: expect.stringContaining('item_reference'),
    });
    expect(refusal({ input: 'hi', tool_choice: { type: 'web_search' } })).toMatchObject({ param: 'tool_choice' });
    expect(refusal({ input: 'hi', previous_response_id: 'resp_1' })).toMatchObject({ param: 'previous_response_id' });
    expect(refusal({ input: [] })).toMatchObject({ param: 'input' });
  });

  it('maps effort outside the chat scale: none turns reasoning off, xhigh is high, minimal is low on chat', () => {
    expect(read({ input: 'hi', reasoning: { effort: 'none' } }).request.reasoning).toBeUndefined();
    expect(read({ input: 'hi', reasoning: { effort: 'xhigh' } }).request.reasoning).toEqual({ effort: 'high' });
    const minimal = read({ input: 'hi', reasoning: { effort: 'minimal' }, max_output_tokens: 500 }).request;
    expect(writeChatRequest(minimal)).toMatchObject({ reasoning_effort: 'low', max_completion_tokens: 500 });
  });

  it('refuses what the contract refuses: a bad function name, temperature above 2, an unknown role', () => {
    const accepted = (body: Record<string, unknown>) =>
      responsesRequestSchema.safeParse({ model: 'm', ...body }).success;
    expect(accepted({ input: 'hi', tools: [{ type: 'function', name: 'bad name' }] })).toBe(false);
    expect(accepted({ input: 'hi', temperature: 2.5 })).toBe(false);
    expect(accepted({ input: [{ role: 'tool', content: 'x' }] })).toBe(false);
    expect(accepted({ input: [{ type: 'function_call', name: 'f', arguments: '{}' }] })).toBe(false);
  });
});

describe('the request writers', () => {
  const { request } = read({
    input: 'Give me JSON',
    text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
    tool_choice: 'required',
    parallel_tool_calls: false,
    temperature: 0.2,
  });

  it('chat completions: tools, tool choice, parallel calls, response format', () => {
    expect(writeChatRequest(request)).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Give me JSON' }],
      temperature: 0.2,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
    });
  });

  it('messages: the answer tool beside the client tool, tool_choice any with parallel use off', () => {
    const { body } = writeMessagesRequest(request);
    expect((body['tools'] as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['lookup', 'answer']);
    expect(body['tool_choice']).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });

  it('messages: thinking parts go back first in the assistant turn, signatures unmodified', () => {
    const loop = read({
      input: [
        { role: 'user', content: 'Weather?' },
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Call it.' }],
          encrypted_content: 'EqQBCkYIBxgCKkD',
        },
        { type: 'function_call', call_id: 'toolu_01', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'toolu_01', output: 'done' },
      ],
      tools: [{ type: 'function', name: 'lookup' }],
      reasoning: { effort: 'low' },
    }).request;
    const { body } = writeMessagesRequest(loop);
    const messages = body['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Call it.', signature: 'EqQBCkYIBxgCKkD' });
    expect(body['thinking']).toMatchObject({ type: 'enabled' });
  });

  it('messages: unsigned thinking (a streamed item without encrypted_content) is not sent; the loop continues without thinking', () => {
    const loop = read({
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Call it.' }] },
        { type: 'function_call', call_id: 'toolu_01', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'toolu_01', output: 'done' },
      ],
      tools: [{ type: 'function', name: 'lookup' }],
      reasoning: { effort: 'low' },
    }).request;
    const { body, warnings } = writeMessagesRequest(loop);
    const messages = body['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages[1]!.content.map((block) => block['type'])).toEqual(['tool_use']);
    expect(body['thinking']).toBeUndefined();
    expect(warnings.join(' ')).toContain('carries no thinking block');
  });
});
