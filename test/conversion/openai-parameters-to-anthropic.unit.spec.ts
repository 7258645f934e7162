/**
 * A Chat Completions request's parameters converted for an Anthropic upstream (docs/wire-formats.md §3.1):
 * sampling and limits, response_format and reasoning_effort; the messages are in
 * openai-request-to-anthropic.unit.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TOKENS } from '../../contracts/anthropic/messages-request.ts';
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
      'seed dropped: no Anthropic equivalent',
      'logprobs dropped: no Anthropic equivalent',
      'logit_bias dropped: no Anthropic equivalent',
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
