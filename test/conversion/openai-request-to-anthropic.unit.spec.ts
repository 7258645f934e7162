/**
 * A Chat Completions request converted for an Anthropic upstream (docs/wire-formats.md §3.1 and the request
 * pitfalls of §3.8): the chat reader, then the anthropic kind's writer, as the registry composes them.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_USER_MESSAGE } from '../../gateway/providers/anthropic/write-messages-turns.ts';
import { chatForAnthropic } from './support/convert-request.ts';

const base = { model: 'claude-sonnet-4-5' };
const convert = (request: Record<string, unknown>) => chatForAnthropic({ ...base, ...request });

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
