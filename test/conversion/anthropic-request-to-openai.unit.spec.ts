/**
 * A Messages request converted for an OpenAI-format upstream (docs/wire-formats.md §3.2): the messages
 * reader, then the openai kind's writer, as the registry composes them.
 */
import { describe, expect, it } from 'vitest';
import { messagesForOpenAI } from './support/convert-request.ts';

const base = { model: 'gpt-4o-mini', max_tokens: 512 };
const convert = (request: Record<string, unknown>) => messagesForOpenAI({ ...base, ...request });
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('messages', () => {
  it('puts system first and keeps string content as it is', () => {
    const { body } = convert({
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in French.' },
      ],
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(body['messages']).toEqual([
      { role: 'system', content: 'Be brief.\nAnswer in French.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('sends base64 images as data URLs and URL images as URLs', () => {
    const { body } = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/b.jpg' } },
          ],
        },
      ],
    });
    expect((body['messages'] as any)[0].content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
      { type: 'image_url', image_url: { url: 'https://example.com/b.jpg' } },
    ]);
  });

  it('turns tool_use into tool_calls and tool_result blocks into tool messages before the rest of the turn', () => {
    const { body } = convert({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Use the tool.', signature: 'sig' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '18°C' }] },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
    });
    expect(body['messages']).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: '18°C' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('marks failed tool results and moves images a tool returned into the following user message', () => {
    const { body } = convert({
      messages: [
        { role: 'user', content: 'Screenshot?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_02', name: 'shot', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_02',
              is_error: true,
              content: [
                { type: 'text', text: 'partial' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
              ],
            },
          ],
        },
      ],
    });
    const [, assistant, tool, user] = body['messages'] as any[];
    expect(assistant).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'toolu_02', type: 'function', function: { name: 'shot', arguments: '{}' } }],
    });
    expect(tool).toEqual({ role: 'tool', tool_call_id: 'toolu_02', content: 'Error: partial' });
    expect(user.content).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } }]);
  });
});

describe('parameters', () => {
  const messages = [{ role: 'user', content: 'Hi' }];

  it('pitfall 16: maps tools without merging the tool type into the parameters', () => {
    const { body } = convert({ messages, tools: [{ type: 'custom', ...weatherTool }] });
    expect(body['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Current weather', parameters: weatherTool.input_schema },
      },
    ]);
  });

  it('drops server tools with a warning', () => {
    const { body, warnings } = convert({
      messages,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }, weatherTool],
    });
    expect((body['tools'] as any[]).map((tool) => tool.function.name)).toEqual(['get_weather']);
    expect(warnings.join()).toMatch(/server tool web_search dropped/);
  });

  it('maps tool_choice in all four forms, and disable_parallel_tool_use', () => {
    const cases: Array<[unknown, unknown]> = [
      [{ type: 'auto' }, 'auto'],
      [{ type: 'any' }, 'required'],
      [{ type: 'none' }, 'none'],
      [
        { type: 'tool', name: 'get_weather' },
        { type: 'function', function: { name: 'get_weather' } },
      ],
    ];
    for (const [choice, expected] of cases) {
      expect(convert({ messages, tools: [weatherTool], tool_choice: choice }).body['tool_choice']).toEqual(expected);
    }
    const serial = convert({
      messages,
      tools: [weatherTool],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(serial.body['parallel_tool_calls']).toBe(false);
  });

  it('maps max_tokens, stop_sequences, temperature, top_p and metadata.user_id; drops top_k', () => {
    const { body, warnings } = convert({
      messages,
      stop_sequences: ['a', 'b', 'c', 'd', 'e'],
      temperature: 0.3,
      top_p: 0.8,
      top_k: 5,
      metadata: { user_id: 'user-7' },
    });
    expect(body).toMatchObject({
      max_tokens: 512,
      stop: ['a', 'b', 'c', 'd'],
      temperature: 0.3,
      top_p: 0.8,
      user: 'user-7',
    });
    expect(body['top_k']).toBeUndefined();
    expect(warnings).toEqual([
      'stop sequences after the fourth dropped: OpenAI takes four',
      'top_k dropped: no OpenAI equivalent',
    ]);
  });

  it('turns thinking into reasoning_effort by budget, with max_completion_tokens for reasoning models', () => {
    for (const [budget, effort] of [
      [1024, 'low'],
      [2048, 'medium'],
      [3276, 'medium'],
      [8000, 'high'],
    ] as const) {
      const { body } = convert({ messages, max_tokens: 10_000, thinking: { type: 'enabled', budget_tokens: budget } });
      expect(body['reasoning_effort']).toBe(effort);
      expect(body['max_completion_tokens']).toBe(10_000);
      expect(body['max_tokens']).toBeUndefined();
    }
    expect(convert({ messages, thinking: { type: 'disabled' } }).body['reasoning_effort']).toBeUndefined();
  });

  it('asks for a stream when the client does', () => {
    expect(convert({ messages, stream: true }).body['stream']).toBe(true);
  });
});
