/**
 * The messages-style request contract: the spec's fields (model, max_tokens, messages of role and content)
 * and the Anthropic shapes a same-format relay must accept.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TOKENS, messagesRequestSchema } from './messages-request.ts';

const base = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] };
const withContent = (content: unknown, role = 'user') => ({ model: 'm', messages: [{ role, content }] });
const withBlock = (block: unknown, role = 'user') => withContent([block], role);

function accepts(body: unknown): boolean {
  return messagesRequestSchema.safeParse(body).success;
}

describe('top-level fields', () => {
  it('accepts the documented request and the thinking request without max_tokens', () => {
    expect(accepts(base)).toBe(true);
    expect(accepts({ model: 'claude-sonnet-4-5-thinking', messages: base.messages })).toBe(true);
    expect(DEFAULT_MAX_TOKENS).toBeGreaterThan(0);
  });

  it.each<[string, unknown]>([
    ['no model', { max_tokens: 1, messages: base.messages }],
    ['an empty model', { ...base, model: '' }],
    ['no messages', { model: 'm' }],
    ['empty messages', { model: 'm', messages: [] }],
    ['max_tokens 0', { ...base, max_tokens: 0 }],
    ['max_tokens -1', { ...base, max_tokens: -1 }],
    ['max_tokens 1.5', { ...base, max_tokens: 1.5 }],
    ['max_tokens as a string', { ...base, max_tokens: '1024' }],
  ])('refuses %s', (_label, body) => {
    expect(accepts(body)).toBe(false);
  });

  it.each<[number, boolean]>([
    [0, true],
    [0.5, true],
    [1, true],
    [-0.01, false],
    [1.01, false],
    [2, false],
  ])('temperature %s → accepted: %s', (temperature, expected) => {
    expect(accepts({ ...base, temperature })).toBe(expected);
  });

  it('accepts a system prompt as a string or text blocks, and refuses other blocks there', () => {
    expect(accepts({ ...base, system: 'Be brief' })).toBe(true);
    expect(
      accepts({ ...base, system: [{ type: 'text', text: 'Be brief', cache_control: { type: 'ephemeral' } }] }),
    ).toBe(true);
    expect(accepts({ ...base, system: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] })).toBe(
      false,
    );
  });

  it('keeps unknown top-level fields', () => {
    const parsed = messagesRequestSchema.parse({ ...base, service_tier: 'auto', container: 'c1' });
    expect(parsed).toMatchObject({ service_tier: 'auto', container: 'c1' });
  });
});

describe('messages', () => {
  it.each(['user', 'assistant'])('accepts role %s', (role) => {
    expect(accepts(withContent('hi', role))).toBe(true);
  });

  it.each(['tool', 'developer', 'bot'])('refuses role %s', (role) => {
    expect(accepts(withContent('hi', role))).toBe(false);
  });

  it('refuses content that is neither a string nor an array', () => {
    expect(accepts(withContent(42))).toBe(false);
    expect(accepts(withContent({ type: 'text', text: 'hi' }))).toBe(false);
  });
});

describe('content blocks', () => {
  it.each<[string, unknown, string?]>([
    ['text', { type: 'text', text: 'hi' }],
    ['image base64 png', { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } }],
    ['image base64 jpeg', { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } }],
    ['image base64 gif', { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lG' } }],
    ['image base64 webp', { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'UklG' } }],
    ['image url', { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }],
    ['tool_use', { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }, 'assistant'],
    ['tool_result string', { type: 'tool_result', tool_use_id: 'toolu_1', content: '21°C' }],
    ['tool_result blocks', { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '21' }] }],
    ['tool_result error', { type: 'tool_result', tool_use_id: 'toolu_1', is_error: true }],
    ['thinking', { type: 'thinking', thinking: 'Let me see', signature: 'sig' }, 'assistant'],
    ['redacted_thinking', { type: 'redacted_thinking', data: 'opaque' }, 'assistant'],
  ])('accepts a %s block', (_label, block, role) => {
    expect(accepts(withBlock(block, role))).toBe(true);
  });

  it.each<[string, unknown]>([
    ['text without text', { type: 'text' }],
    [
      'image with media type image/bmp',
      { type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'Qk0' } },
    ],
    ['image base64 without data', { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }],
    ['image url without url', { type: 'image', source: { type: 'url' } }],
    ['image with an unknown source type', { type: 'image', source: { type: 'ftp', url: 'ftp://x' } }],
    ['image without source', { type: 'image' }],
    ['tool_use without id', { type: 'tool_use', name: 'x', input: {} }],
    ['tool_use with string input', { type: 'tool_use', id: 't', name: 'x', input: '{}' }],
    ['tool_result without tool_use_id', { type: 'tool_result', content: 'x' }],
    ['thinking without signature', { type: 'thinking', thinking: 'hmm' }],
    ['a block without type', { text: 'hi' }],
  ])('refuses %s', (_label, block) => {
    expect(accepts(withBlock(block))).toBe(false);
  });

  it('passes unknown block types through untouched', () => {
    const block = { type: 'search_result', source: 'https://example.com', title: 'T', content: [{ type: 'text' }] };
    const parsed = messagesRequestSchema.parse(withBlock(block));
    expect(parsed.messages[0]?.content).toEqual([block]);
  });

  it('keeps unknown fields of known blocks (cache_control, citations)', () => {
    const block = { type: 'text', text: 'hi', cache_control: { type: 'ephemeral' }, citations: [] };
    expect(messagesRequestSchema.parse(withBlock(block)).messages[0]?.content).toEqual([block]);
  });
});

describe('tool_choice', () => {
  it.each<[unknown, boolean]>([
    [{ type: 'auto' }, true],
    [{ type: 'auto', disable_parallel_tool_use: true }, true],
    [{ type: 'any' }, true],
    [{ type: 'tool', name: 'get_weather' }, true],
    [{ type: 'none' }, true],
    [{ type: 'tool' }, false],
    [{ type: 'required' }, false],
    ['auto', false],
  ])('%j → accepted: %s', (choice, expected) => {
    expect(accepts({ ...base, tool_choice: choice })).toBe(expected);
  });
});

describe('thinking', () => {
  it.each<[unknown, boolean]>([
    [{ type: 'enabled', budget_tokens: 1024 }, true],
    [{ type: 'enabled', budget_tokens: 16000 }, true],
    [{ type: 'enabled', budget_tokens: 1023 }, false],
    [{ type: 'enabled', budget_tokens: 2048.5 }, false],
    [{ type: 'enabled' }, false],
    [{ type: 'disabled' }, true],
    [{ type: 'adaptive' }, true],
    [{ type: 'on' }, false],
  ])('%j → accepted: %s', (thinking, expected) => {
    expect(accepts({ ...base, thinking })).toBe(expected);
  });
});

describe('tools', () => {
  const weather = {
    name: 'get_weather',
    description: 'Current weather',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  };

  it('accepts a custom tool with an object input_schema, typed or untyped', () => {
    expect(accepts({ ...base, tools: [weather] })).toBe(true);
    expect(accepts({ ...base, tools: [{ ...weather, type: 'custom' }] })).toBe(true);
  });

  it('accepts a versioned server tool without input_schema', () => {
    expect(accepts({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] })).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an input_schema of type array', { ...weather, input_schema: { type: 'array' } }],
    ['no input_schema', { name: 'get_weather' }],
    ['a custom type without input_schema', { type: 'custom', name: 'get_weather' }],
    ['a name with spaces', { ...weather, name: 'get weather' }],
    ['a name of 129 characters', { ...weather, name: 'a'.repeat(129) }],
  ])('refuses a tool with %s', (_label, definition) => {
    expect(accepts({ ...base, tools: [definition] })).toBe(false);
  });
});
