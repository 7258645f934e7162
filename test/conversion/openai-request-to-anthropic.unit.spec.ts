/**
 * A Chat Completions request converted for an Anthropic upstream (docs/wire-formats.md §3.1 and the request
 * pitfalls of §3.8): the chat reader, then the anthropic kind's writer, as the registry composes them.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TOKENS } from '../../contracts/anthropic/messages-request.ts';
import { EMPTY_USER_MESSAGE } from '../../gateway/providers/anthropic/write-messages-turns.ts';
import { GatewayError } from '../../gateway/relay/errors.ts';
import { chatForAnthropic } from './support/convert-request.ts';

const base = { model: 'claude-sonnet-4-5' };
const convert = (request: Record<string, unknown>) => chatForAnthropic({ ...base, ...request });
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('messages', () => {
  it('hoists system and developer messages, in order, into system', () => {
    const { body } = convert({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
      ],
    });
    expect(body['system']).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Answer in French.' },
    ]);
    expect(body['messages']).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('sends URL images as URL sources and data URLs as base64 sources', () => {
    const { body } = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          ],
        },
      ],
    });
    expect((body['messages'] as any)[0].content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
    ]);
  });

  it('turns tool calls into tool_use and tool messages into one user turn of tool_results, user text after them', () => {
    const { body } = convert({
      messages: [
        { role: 'user', content: 'Weather in Paris and London?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"London"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '12°C' }] },
        { role: 'user', content: 'Which is warmer?' },
      ],
    });
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and London?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'London' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18°C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: '12°C' }] },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ]);
  });

  it('a tool message of several text parts reaches the tool_result as separate text blocks, none joined', () => {
    const { body } = convert({
      messages: [
        { role: 'user', content: 'What time is it in Paris?' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'call_t', type: 'function', function: { name: 'now', arguments: '{}' } }],
        },
        {
          role: 'tool',
          tool_call_id: 'call_t',
          content: [
            { type: 'text', text: '12:00' },
            { type: 'text', text: ' ' },
            { type: 'text', text: 'CET' },
          ],
        },
      ],
    });
    expect((body['messages'] as any[])[2].content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'call_t',
        content: [
          { type: 'text', text: '12:00' },
          { type: 'text', text: 'CET' },
        ],
      },
    ]);
  });

  it('a trailing empty user message stays a user turn, with the documented placeholder, not an assistant prefill', () => {
    for (const empty of ['', [], [{ type: 'text', text: '  ' }]]) {
      const { body, warnings } = convert({
        messages: [
          { role: 'user', content: 'Tell me a story.' },
          { role: 'assistant', content: 'Once upon a time' },
          { role: 'user', content: empty },
        ],
      });
      const turns = body['messages'] as any[];
      expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
      expect(turns[2].content).toEqual([{ type: 'text', text: EMPTY_USER_MESSAGE }]);
      expect(warnings.join('\n')).toMatch(/empty user message was sent as "\(empty message\)"/);
    }
  });

  it('an empty user message after tool results adds nothing: the turn is a user turn already', () => {
    const { body, warnings } = convert({
      messages: [
        { role: 'user', content: 'Go' },
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c', content: 'done' },
        { role: 'user', content: '' },
      ],
    });
    expect((body['messages'] as any[])[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'c', content: 'done' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('pitfall 10: keeps a tool call whose arguments are not JSON, so its result is not orphaned', () => {
    const { body, warnings } = convert({
      messages: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'run', arguments: '{"a":' } }],
        },
        { role: 'tool', tool_call_id: 'call_x', content: 'done' },
      ],
    });
    const [, assistant, results] = body['messages'] as any[];
    expect(assistant.content).toEqual([{ type: 'tool_use', id: 'call_x', name: 'run', input: {} }]);
    expect(results.content[0].tool_use_id).toBe('call_x');
    expect(warnings.join()).toMatch(/not a JSON object/);
  });

  it('pitfall 11: sanitises tool ids the same way on tool_use and tool_result', () => {
    const { body } = convert({
      messages: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'functions.Bash:0', type: 'function', function: { name: 'Bash', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'functions.Bash:0', content: 'ok' },
      ],
    });
    const [, assistant, results] = body['messages'] as any[];
    expect(assistant.content[0].id).toBe('functions_Bash_0');
    expect(results.content[0].tool_use_id).toBe('functions_Bash_0');
  });

  it('pitfall 9: sends no empty or whitespace-only text blocks', () => {
    const { body } = convert({
      messages: [
        { role: 'system', content: '  ' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'Hello' },
          ],
        },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: '' },
      ],
    });
    expect(body['system']).toBeUndefined();
    const texts = JSON.stringify(body['messages']).match(/"text":"[^"]*"/g);
    expect(texts).toEqual(['"text":"Hello"']);
    expect((body['messages'] as any)[2].content).toEqual([{ type: 'tool_result', tool_use_id: 'c' }]);
  });

  it('drops audio parts and names them in the warnings', () => {
    const { body, warnings } = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
            { type: 'text', text: 'Hi' },
          ],
        },
      ],
    });
    expect((body['messages'] as any)[0].content).toEqual([{ type: 'text', text: 'Hi' }]);
    expect(warnings).toContain('input_audio part dropped: Anthropic has no equivalent');
  });
});

describe('parameters', () => {
  const messages = [{ role: 'user', content: 'Hi' }];

  it('maps tools, and tool_choice in all four forms', () => {
    const choices: Array<[unknown, unknown]> = [
      ['auto', { type: 'auto' }],
      ['required', { type: 'any' }],
      ['none', { type: 'none' }],
      [
        { type: 'function', function: { name: 'get_weather' } },
        { type: 'tool', name: 'get_weather' },
      ],
    ];
    for (const [choice, expected] of choices) {
      const { body } = convert({ messages, tools: [weatherTool], tool_choice: choice });
      expect(body['tool_choice']).toEqual(expected);
      expect(body['tools']).toEqual([
        { name: 'get_weather', description: 'Current weather', input_schema: weatherTool.function.parameters },
      ]);
    }
  });

  it('gives a function without parameters an empty object schema, and maps parallel_tool_calls: false', () => {
    const { body } = convert({
      messages,
      tools: [{ type: 'function', function: { name: 'now' } }],
      parallel_tool_calls: false,
    });
    expect(body['tools']).toEqual([{ name: 'now', input_schema: { type: 'object', properties: {} } }]);
    expect(body['tool_choice']).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });

  it('maps stop, temperature (clamped to 1), top_p and user', () => {
    const { body, warnings } = convert({ messages, stop: ['END', ' '], temperature: 1.5, user: 'user-42' });
    expect(body).toMatchObject({ stop_sequences: ['END'], temperature: 1, metadata: { user_id: 'user-42' } });
    expect(warnings.join('\n')).toMatch(/whitespace-only stop/);
    expect(warnings.join('\n')).toMatch(/temperature above 1 clamped/);
    expect(convert({ messages, stop: 'STOP' }).body['stop_sequences']).toEqual(['STOP']);
    expect(convert({ messages, top_p: 0.9 })).toMatchObject({ body: { top_p: 0.9 }, warnings: [] });
  });

  it('temperature and top_p together: temperature kept, top_p dropped with a warning', () => {
    const { body, warnings } = convert({ messages, temperature: 0.2, top_p: 0.9 });
    expect(body['temperature']).toBe(0.2);
    expect(body).not.toHaveProperty('top_p');
    expect(warnings).toEqual([
      'top_p dropped: Anthropic models refuse temperature and top_p together, temperature kept',
    ]);
  });

  it('with thinking, a top_p the thinking rules allow stays when they drop the temperature', () => {
    const { body } = convert({ messages, temperature: 0.2, top_p: 0.97, reasoning_effort: 'low' });
    expect(body).not.toHaveProperty('temperature');
    expect(body['top_p']).toBe(0.97);
  });

  it('takes max_completion_tokens, else max_tokens, else the documented default', () => {
    expect(convert({ messages, max_completion_tokens: 300, max_tokens: 100 }).body['max_tokens']).toBe(300);
    expect(convert({ messages, max_tokens: 100 }).body['max_tokens']).toBe(100);
    expect(convert({ messages }).body['max_tokens']).toBe(DEFAULT_MAX_TOKENS);
  });

  it('refuses n > 1 with a 400 that names the parameter', () => {
    let thrown: unknown;
    try {
      convert({ messages, n: 2 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ status: 400, param: 'n', kind: 'invalid_request' });
    expect(convert({ messages, n: 1 }).body['n']).toBeUndefined();
  });

  it('drops what Anthropic has no field for, with a warning each', () => {
    const { body, warnings } = convert({
      messages,
      presence_penalty: 0.5,
      seed: 7,
      logprobs: true,
      logit_bias: { 1: 2 },
    });
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model']);
    expect(warnings).toEqual([
      'presence_penalty dropped: no Anthropic equivalent',
      'logprobs dropped: no Anthropic equivalent',
      'logit_bias dropped: no Anthropic equivalent',
      'seed dropped: no Anthropic equivalent',
    ]);
  });
});

describe('response_format', () => {
  const messages = [{ role: 'user', content: 'Weather in Paris as JSON' }];
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

  it('json_schema becomes a tool named after the schema, and the model is made to call it', () => {
    const { body } = convert({
      messages,
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema } },
    });
    expect(body['tools']).toEqual([{ name: 'weather', description: expect.any(String), input_schema: schema }]);
    expect(body['tool_choice']).toEqual({ type: 'tool', name: 'weather' });
  });

  it('json_object becomes a free-form object tool; a name taken by a client tool falls back to json_response', () => {
    const json = convert({ messages, response_format: { type: 'json_object' } }).body;
    expect(json['tools']).toEqual([
      {
        name: 'json_response',
        description: expect.any(String),
        input_schema: { type: 'object', additionalProperties: true },
      },
    ]);
    const clash = convert({
      messages,
      tools: [weatherTool],
      response_format: { type: 'json_schema', json_schema: { name: 'get_weather', schema } },
    }).body;
    expect((clash['tools'] as any[]).map((tool) => tool.name)).toEqual(['get_weather', 'json_response']);
    // The client's own tools stay callable: the answer tool is not forced (Anthropic's default is auto).
    expect(clash['tool_choice']).toBeUndefined();
  });

  it('text is the default and changes nothing', () => {
    expect(convert({ messages, response_format: { type: 'text' } }).body['tools']).toBeUndefined();
  });
});

describe('reasoning_effort', () => {
  const messages = [{ role: 'user', content: 'Think about it' }];

  it('turns on thinking with the effort budget, max_tokens on top of the default when the client set none', () => {
    for (const [effort, budget] of [
      ['low', 1024],
      ['medium', 2048],
      ['high', 4096],
    ] as const) {
      const { body } = convert({ messages, reasoning_effort: effort });
      expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: budget });
      expect(body['max_tokens']).toBe(DEFAULT_MAX_TOKENS + budget);
    }
  });

  it('pitfall 14: keeps 1024 <= budget < max_tokens whatever max the client set', () => {
    for (const max of [1, 500, 1024, 1280, 2000, 5000, 100_000]) {
      for (const effort of ['low', 'medium', 'high'] as const) {
        const { body } = convert({ messages, reasoning_effort: effort, max_completion_tokens: max });
        const { budget_tokens } = body['thinking'] as { budget_tokens: number };
        expect(budget_tokens).toBeGreaterThanOrEqual(1024);
        expect(budget_tokens).toBeLessThan(body['max_tokens'] as number);
      }
    }
  });

  it('pitfall 13: no forced tool (nor forced answer tool), no temperature, while thinking', () => {
    const { body, warnings } = convert({
      messages,
      reasoning_effort: 'low',
      temperature: 0.2,
      top_p: 0.5,
      tools: [weatherTool],
      tool_choice: 'required',
    });
    expect(body['tool_choice']).toEqual({ type: 'auto' });
    expect(body['temperature']).toBeUndefined();
    expect(body['top_p']).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/cannot force a tool/);
    const json = convert({ messages, reasoning_effort: 'low', response_format: { type: 'json_object' } }).body;
    expect(json['tool_choice']).toBeUndefined();
  });

  it('pitfall 12: passes thinking_blocks back first; without them a thinking tool loop turns thinking off', () => {
    const loop = (assistant: Record<string, unknown>) => [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        ...assistant,
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
    ];
    const thinkingBlock = { type: 'thinking', thinking: 'Use the tool.', signature: 'sig' };
    const kept = convert({ messages: loop({ thinking_blocks: [thinkingBlock] }), reasoning_effort: 'low' });
    expect((kept.body['messages'] as any)[1].content[0]).toEqual(thinkingBlock);
    expect(kept.body['thinking']).toBeDefined();
    const lost = convert({ messages: loop({}), reasoning_effort: 'low' });
    expect(lost.body['thinking']).toBeUndefined();
    expect(lost.warnings.join()).toMatch(/reasoning_effort ignored for this turn/);
  });
});
