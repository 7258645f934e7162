/**
 * A captured payload read as a conversation in the other client formats: Chat Completions (tool calls,
 * a tool message, reasoning in the reply), Responses (instructions, items, reasoning summary) and
 * Gemini (system instruction, parts, a function call); a side kept only as text has no turns.
 */
import type { PayloadView } from '@contracts/console-api-payloads.ts';
import { expect, it } from 'vitest';
import { conversationOf } from './conversation.ts';

const view = (request: unknown, reply: unknown): PayloadView => ({
  request_id: 'r',
  token_id: 't',
  endpoint: 'x',
  stream: false,
  status: 200,
  captured_at: '',
  expires_at: '',
  raw_bytes: 0,
  stored_bytes: 0,
  request: { json: request, bytes: 1, truncated: false },
  reply: { json: reply, bytes: 1, truncated: false },
});

const flat = (payload: PayloadView) =>
  conversationOf(payload).map((turn) => [
    turn.role,
    turn.parts.map((part) => `${part.kind}:${part.name ?? ''}:${part.text}`),
  ]);

it('reads Chat Completions', () => {
  const request = {
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'done' },
    ],
  };
  const reply = {
    object: 'chat.completion',
    choices: [{ message: { role: 'assistant', content: 'ok', reasoning_content: 'why' } }],
  };
  expect(flat(view(request, reply))).toEqual([
    ['system', ['text::sys']],
    ['user', ['text::hi']],
    ['assistant', ['tool_call:f:{}']],
    ['tool', ['tool_result::done']],
    ['assistant', ['thinking::why', 'text::ok']],
  ]);
});

it('reads Responses and Gemini', () => {
  const responses = view(
    {
      instructions: 'sys',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call_output', call_id: 'c', output: 'out' },
      ],
    },
    {
      object: 'response',
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hmm' }] },
        { type: 'function_call', name: 'f', arguments: '{"a":1}' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      ],
    },
  );
  expect(flat(responses)).toEqual([
    ['system', ['text::sys']],
    ['user', ['text::hi']],
    ['tool', ['tool_result::out']],
    ['assistant', ['thinking::hmm']],
    ['assistant', ['tool_call:f:{"a":1}']],
    ['assistant', ['text::ok']],
  ]);
  const gemini = view(
    { systemInstruction: { parts: [{ text: 'sys' }] }, contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'plan', thought: true }, { functionCall: { name: 'f', args: { a: 1 } } }],
          },
        },
      ],
    },
  );
  expect(flat(gemini)).toEqual([
    ['system', ['text::sys']],
    ['user', ['text::hi']],
    ['assistant', ['thinking::plan', 'tool_call:f:{\n  "a": 1\n}']],
  ]);
});

it('has no turns for a side kept only as text', () => {
  const cut = view(undefined, undefined);
  cut.request = { text: '{"messages":[', bytes: 9, truncated: true };
  expect(conversationOf(cut)).toEqual([]);
});
