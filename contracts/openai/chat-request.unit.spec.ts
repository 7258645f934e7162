/**
 * The chat request contract against every field of the spec's "Chat request", "Message" and "Tool" tables
 * and its "Limits", plus the sentence a client sees when a request is refused.
 */
import { describe, expect, it } from 'vitest';
import { describeIssues, firstIssueField } from '../validation-message.ts';
import { chatCompletionRequestSchema, MAX_TOOLS } from './chat-request.ts';

const base = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] };
const tool = (name: string) => ({ type: 'function', function: { name } });
const tools = (count: number) => Array.from({ length: count }, (_, index) => tool(`fn_${index}`));
const userWith = (content: unknown) => ({ model: 'm', messages: [{ role: 'user', content }] });

function accepts(body: unknown): boolean {
  return chatCompletionRequestSchema.safeParse(body).success;
}

/** The sentence and the `param` a refused request produces. */
function refusal(body: unknown): { message: string; field: string | null } {
  const result = chatCompletionRequestSchema.safeParse(body);
  if (result.success) throw new Error(`expected a refusal of ${JSON.stringify(body)}`);
  return { message: describeIssues(result.error.issues), field: firstIssueField(result.error.issues) };
}

describe('required fields', () => {
  it('accepts the minimal body of the spec', () => {
    expect(accepts(base)).toBe(true);
  });

  it.each([
    ['model missing', { messages: base.messages }],
    ['model empty', { ...base, model: '' }],
    ['messages missing', { model: 'm' }],
    ['messages empty', { model: 'm', messages: [] }],
    ['messages not an array', { model: 'm', messages: 'Hello' }],
  ])('refuses %s', (_label, body) => {
    expect(accepts(body)).toBe(false);
  });
});

describe('optional fields: type and range', () => {
  it.each<[string, unknown, boolean]>([
    ['stream', true, true],
    ['stream', false, true],
    ['stream', 'yes', false],
    ['temperature', 0, true],
    ['temperature', 1, true],
    ['temperature', 2, true],
    ['temperature', -0.01, false],
    ['temperature', 2.01, false],
    ['temperature', '1', false],
    ['top_p', 0, true],
    ['top_p', 1, true],
    ['top_p', -0.01, false],
    ['top_p', 1.01, false],
    ['n', 1, true],
    ['n', 128, true],
    ['n', 0, false],
    ['n', 129, false],
    ['n', 1.5, false],
    ['max_tokens', 1, true],
    ['max_tokens', 0, false],
    ['max_tokens', -5, false],
    ['max_tokens', 10.5, false],
    ['max_completion_tokens', 4096, true],
    ['max_completion_tokens', 0, false],
    ['max_completion_tokens', 1.5, false],
    ['stop', 'END', true],
    ['stop', ['a', 'b', 'c', 'd'], true],
    ['stop', ['a', 'b', 'c', 'd', 'e'], false],
    ['stop', 7, false],
    ['stop', null, true],
    ['presence_penalty', -2, true],
    ['presence_penalty', 2, true],
    ['presence_penalty', -2.01, false],
    ['presence_penalty', 2.01, false],
    ['frequency_penalty', -2, true],
    ['frequency_penalty', 2, true],
    ['frequency_penalty', -2.01, false],
    ['frequency_penalty', 2.01, false],
    ['reasoning_effort', 'low', true],
    ['reasoning_effort', 'medium', true],
    ['reasoning_effort', 'high', true],
    ['reasoning_effort', 'max', false],
    ['seed', 42, true],
    ['seed', -7, true],
    ['seed', 4.2, false],
    ['logprobs', true, true],
    ['logprobs', 'true', false],
  ])('%s = %j → accepted: %s', (field, value, expected) => {
    expect(accepts({ ...base, [field]: value })).toBe(expected);
  });

  it('injects no defaults: a relayed body carries only what the client sent', () => {
    const parsed = chatCompletionRequestSchema.parse(base);
    expect(Object.keys(parsed).sort()).toEqual(['messages', 'model']);
  });
});

describe('tools', () => {
  it(`accepts ${MAX_TOOLS} tools and refuses ${MAX_TOOLS + 1}`, () => {
    expect(MAX_TOOLS).toBe(128);
    expect(accepts({ ...base, tools: tools(128) })).toBe(true);
    expect(accepts({ ...base, tools: tools(129) })).toBe(false);
  });

  it('accepts the full function definition of the spec', () => {
    const weather = {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather of a city',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', description: 'City name' } },
          required: ['city'],
        },
      },
    };
    const parsed = chatCompletionRequestSchema.parse({ ...base, tools: [weather] });
    expect(parsed.tools?.[0]).toEqual(weather);
  });

  it.each<[string, unknown]>([
    ['type other than function', { type: 'retrieval', function: { name: 'x' } }],
    ['name with a space', tool('get weather')],
    ['name with a dot', tool('get.weather')],
    ['empty name', tool('')],
    ['name of 65 characters', tool('a'.repeat(65))],
    ['description not a string', { type: 'function', function: { name: 'x', description: 5 } }],
    ['parameters not an object', { type: 'function', function: { name: 'x', parameters: 'object' } }],
    ['no function', { type: 'function' }],
  ])('refuses a tool with %s', (_label, definition) => {
    expect(accepts({ ...base, tools: [definition] })).toBe(false);
  });

  it('accepts names of 64 characters with dashes and underscores', () => {
    expect(accepts({ ...base, tools: [tool(`a-b_${'c'.repeat(60)}`)] })).toBe(true);
  });

  it.each<[unknown, boolean]>([
    ['auto', true],
    ['none', true],
    ['required', true],
    [{ type: 'function', function: { name: 'get_weather' } }, true],
    ['sometimes', false],
    ['function', false],
    [{ type: 'function' }, false],
    [{ type: 'tool', function: { name: 'x' } }, false],
  ])('tool_choice %j → accepted: %s', (choice, expected) => {
    expect(accepts({ ...base, tool_choice: choice })).toBe(expected);
  });
});

describe('response_format', () => {
  it.each<[unknown, boolean]>([
    [{ type: 'text' }, true],
    [{ type: 'json_object' }, true],
    [{ type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } }, true],
    [{ type: 'json_schema' }, false],
    [{ type: 'json_schema', json_schema: { schema: {} } }, false],
    [{ type: 'xml' }, false],
    ['json_object', false],
  ])('%j → accepted: %s', (format, expected) => {
    expect(accepts({ ...base, response_format: format })).toBe(expected);
  });
});

describe('messages', () => {
  it.each(['system', 'developer', 'user', 'assistant'])('accepts role %s with string content', (role) => {
    expect(accepts({ model: 'm', messages: [{ role, content: 'text' }] })).toBe(true);
  });

  it('accepts role tool with a tool_call_id and refuses it without one', () => {
    const toolMessage = { role: 'tool', content: '{"temp":21}', tool_call_id: 'call_1' };
    expect(accepts({ model: 'm', messages: [toolMessage] })).toBe(true);
    expect(accepts({ model: 'm', messages: [{ role: 'tool', content: 'x' }] })).toBe(false);
    expect(accepts({ model: 'm', messages: [{ ...toolMessage, tool_call_id: '' }] })).toBe(false);
  });

  it.each(['function', 'bot', 'User', ''])('refuses role %j', (role) => {
    expect(accepts({ model: 'm', messages: [{ role, content: 'x' }] })).toBe(false);
  });

  it('accepts an array of text and image_url parts', () => {
    const parts = [
      { type: 'text', text: 'What is in this image?' },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
    ];
    expect(chatCompletionRequestSchema.parse(userWith(parts)).messages[0]?.content).toEqual(parts);
  });

  it.each<[string, unknown]>([
    ['an image part without url', [{ type: 'image_url', image_url: {} }]],
    ['an image part with an empty url', [{ type: 'image_url', image_url: { url: '' } }]],
    ['an image part without image_url', [{ type: 'image_url' }]],
    ['a text part without text', [{ type: 'text' }]],
    ['an unknown part type', [{ type: 'video', video: {} }]],
    ['a number', 42],
  ])('refuses user content with %s', (_label, content) => {
    expect(accepts(userWith(content))).toBe(false);
  });

  it('accepts an assistant message with tool_calls and null content', () => {
    const assistant = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    };
    expect(accepts({ model: 'm', messages: [{ role: 'user', content: 'Weather?' }, assistant] })).toBe(true);
    const broken = { ...assistant, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'x' } }] };
    expect(accepts({ model: 'm', messages: [broken] })).toBe(false);
  });

  it('refuses image parts in a system message (text parts only)', () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
    expect(accepts({ model: 'm', messages: [{ role: 'system', content: [image] }] })).toBe(false);
    expect(accepts({ model: 'm', messages: [{ role: 'system', content: [{ type: 'text', text: 'Be brief' }] }] })).toBe(
      true,
    );
  });
});

describe('vendor extensions', () => {
  it('keeps unknown top-level, message and part fields', () => {
    const body = {
      ...base,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }], x: 1 }],
      top_k: 40,
      enable_thinking: true,
      extra_body: { safe_mode: 'strict' },
    };
    const parsed = chatCompletionRequestSchema.parse(body) as Record<string, unknown>;
    expect(parsed['top_k']).toBe(40);
    expect(parsed['enable_thinking']).toBe(true);
    expect(parsed['extra_body']).toEqual({ safe_mode: 'strict' });
    expect(parsed).toEqual(body);
  });
});

describe('the refusal message names the field and the rule', () => {
  it.each<[string, unknown, string, string[]]>([
    ['temperature 3', { ...base, temperature: 3 }, 'temperature', ['temperature', 'at most 2']],
    ['temperature -1', { ...base, temperature: -1 }, 'temperature', ['temperature', 'at least 0']],
    ['129 tools', { ...base, tools: tools(129) }, 'tools', ['tools', '128']],
    ['missing model', { messages: base.messages }, 'model', ['model', 'required']],
    ['missing messages', { model: 'm' }, 'messages', ['messages', 'required']],
    ['empty messages', { model: 'm', messages: [] }, 'messages', ['messages', 'at least 1']],
    ['presence_penalty 2.5', { ...base, presence_penalty: 2.5 }, 'presence_penalty', ['presence_penalty', '2']],
    ['frequency_penalty -3', { ...base, frequency_penalty: -3 }, 'frequency_penalty', ['frequency_penalty', '-2']],
    ['reasoning_effort max', { ...base, reasoning_effort: 'max' }, 'reasoning_effort', ['"low"', '"high"']],
    ['bad tool name', { ...base, tools: [tool('a b')] }, 'tools[0].function.name', ['tools[0].function.name', 'a-z']],
    [
      'tool message without tool_call_id',
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      'messages[0].tool_call_id',
      ['messages[0].tool_call_id', 'required'],
    ],
  ])('%s', (_label, body, field, fragments) => {
    const { message, field: param } = refusal(body);
    expect(param).toBe(field);
    for (const fragment of fragments) expect(message).toContain(fragment);
  });

  it('a bad role names messages[0].role and lists the five accepted roles', () => {
    const { message, field } = refusal({ model: 'm', messages: [{ role: 'bot', content: 'x' }] });
    expect(field).toBe('messages[0].role');
    expect(message.startsWith('messages[0].role: ')).toBe(true);
    for (const role of ['system', 'developer', 'user', 'assistant', 'tool']) expect(message).toContain(`"${role}"`);
  });

  it('an image part without url names the url path inside the content part', () => {
    const { message, field } = refusal(
      userWith([
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: {} },
      ]),
    );
    expect(message).toBe('messages[0].content[1].image_url.url: is required');
    expect(field).toBe('messages[0].content[1].image_url.url');
  });

  it.each<[string, unknown, string]>([
    ['model of the wrong type', { ...base, model: 5 }, 'model: must be a string'],
    ['temperature as a string', { ...base, temperature: 'hot' }, 'temperature: must be a number'],
    ['n not an integer', { ...base, n: 1.5 }, 'n: must be an integer'],
    ['five stop sequences', { ...base, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop: must have at most 4 items'],
    ['content of the wrong type', userWith(42), 'messages[0].content: must be a string or an array'],
  ])('%s is not reported as missing', (_label, body, message) => {
    expect(refusal(body).message).toBe(message);
  });

  it.each<[string, unknown, string]>([
    ['tool_choice', { ...base, tool_choice: 'sometimes' }, 'tool_choice: must be one of "none", "auto", "required"'],
    [
      'response_format',
      { ...base, response_format: { type: 'xml' } },
      'response_format.type: must be one of "text", "json_object", "json_schema"',
    ],
  ])('an unknown %s kind lists the accepted ones', (_label, body, message) => {
    expect(refusal(body).message).toBe(message);
  });
});
