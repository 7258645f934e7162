/**
 * The two ingress readers, case by case: a client's request (checked by its contract, as the relay
 * does) and the neutral request it becomes. The writers' side is covered by the converter suites.
 */
import { describe, expect, it } from 'vitest';
import { messagesRequestSchema } from '../../contracts/anthropic/messages-request.ts';
import type { NeutralRequest } from '../../contracts/neutral/request.ts';
import { chatCompletionRequestSchema } from '../../contracts/openai/chat-request.ts';
import { writeMessagesRequest } from '../../gateway/providers/anthropic/write-messages-request.ts';
import { readChatRequest } from '../../gateway/providers/chat-completions/read-chat-request.ts';
import { readMessagesRequest } from '../../gateway/providers/messages/read-messages-request.ts';

const readChat = (body: Record<string, unknown>) =>
  readChatRequest(chatCompletionRequestSchema.parse({ model: 'm', ...body }), { target: 'Target' });
const readMessages = (body: Record<string, unknown>) =>
  readMessagesRequest(messagesRequestSchema.parse({ model: 'm', ...body }), { target: 'Target' });

const schema = { type: 'object', properties: { city: { type: 'string' } } };

describe('the chat completions reader', () => {
  const cases: Array<[string, Record<string, unknown>, Partial<NeutralRequest>]> = [
    [
      'system and developer messages, in order; text and image parts',
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'In French.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR', detail: 'low' } },
              { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
            ],
          },
        ],
      },
      {
        system: ['Be brief.', 'In French.'],
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', url: 'data:image/png;base64,iVBOR', detail: 'low' },
              { type: 'file', data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
            ],
          },
        ],
      },
    ],
    [
      'thinking_blocks with signatures and redacted thinking, first in the turn; tool calls; tool results in parts',
      {
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: 'Checking.',
            thinking_blocks: [
              { type: 'thinking', thinking: 'Use the tool.', signature: 'sig-1' },
              { type: 'redacted_thinking', data: 'opaque' },
            ],
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          {
            role: 'tool',
            tool_call_id: 'call_1',
            content: [
              { type: 'text', text: '12:00' },
              { type: 'text', text: 'CET' },
            ],
          },
          { role: 'user', content: 'Thanks' },
        ],
      },
      {
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'thinking', text: 'Use the tool.', signature: 'sig-1' },
              { type: 'redacted-thinking', data: 'opaque' },
              { type: 'text', text: 'Checking.' },
              { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                type: 'tool-result',
                callId: 'call_1',
                output: '12:00CET',
                content: [
                  { type: 'text', text: '12:00' },
                  { type: 'text', text: 'CET' },
                ],
              },
              { type: 'text', text: 'Thanks' },
            ],
          },
        ],
      },
    ],
    [
      'tools, a forced tool, parallel calls off, json_schema, stop, sampling, effort, user',
      {
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [{ type: 'function', function: { name: 'weather', parameters: schema, strict: true } }],
        tool_choice: { type: 'function', function: { name: 'weather' } },
        parallel_tool_calls: false,
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
        stop: 'END',
        max_tokens: 50,
        max_completion_tokens: 300,
        temperature: 0.5,
        top_p: 0.9,
        reasoning_effort: 'high',
        user: 'user-1',
        stream: true,
      },
      {
        tools: [{ name: 'weather', parameters: schema, strict: true }],
        toolChoice: { name: 'weather' },
        parallelToolCalls: false,
        responseFormat: { type: 'json-schema', name: 'answer', schema, strict: true },
        sampling: { maxOutputTokens: 300, temperature: 0.5, topP: 0.9, stop: ['END'] },
        reasoning: { effort: 'high' },
        user: 'user-1',
        stream: true,
      },
    ],
    [
      'json_object asks for any JSON object',
      { messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' } },
      { responseFormat: { type: 'json-object' } },
    ],
  ];

  it.each(cases)('%s', (_name, body, expected) => {
    const { request, warnings } = readChat(body);
    expect(request).toMatchObject(expected);
    expect(warnings).toEqual([]);
  });

  it('a json_schema without a schema asks for any JSON object', () => {
    const format = { type: 'json_schema', json_schema: { name: 'answer' } };
    expect(
      readChat({ messages: [{ role: 'user', content: 'Hi' }], response_format: format }).request.responseFormat,
    ).toEqual({
      type: 'json-object',
    });
  });

  it('names what it drops after the target, and refuses n > 1', () => {
    const { warnings } = readChat({
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
      seed: 1,
      logprobs: true,
    });
    expect(warnings).toEqual([
      'input_audio part dropped: Target has no equivalent',
      'seed dropped: no Target equivalent',
      'logprobs dropped: no Target equivalent',
    ]);
    expect(() => readChat({ messages: [{ role: 'user', content: 'Hi' }], n: 2 })).toThrow(/n greater than 1/);
  });
});

describe('the messages reader', () => {
  const ephemeral = { type: 'ephemeral' };
  const cases: Array<[string, Record<string, unknown>, Partial<NeutralRequest>]> = [
    [
      'system blocks as one text with its cache breakpoint; images, documents; cache_control on blocks and tools',
      {
        system: [
          { type: 'text', text: 'You are a coder.' },
          { type: 'text', text: 'Long rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: ephemeral },
              {
                type: 'document',
                source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' },
                title: 'spec',
              },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
              { type: 'text', text: 'Summarise.', cache_control: ephemeral },
            ],
          },
        ],
        tools: [{ name: 'read', input_schema: { type: 'object' }, cache_control: ephemeral }],
      },
      {
        system: ['You are a coder.\nLong rules.'],
        systemCache: { ttl: '1h' },
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'image', url: 'data:image/png;base64,iVBOR' },
              { type: 'image', url: 'https://example.com/a.png', cache: {} },
              { type: 'file', data: 'data:application/pdf;base64,JVBE', filename: 'spec' },
              { type: 'text', text: 'plain words' },
              { type: 'text', text: 'Summarise.', cache: {} },
            ],
          },
        ],
        tools: [{ name: 'read', parameters: { type: 'object' }, cache: {} }],
      },
    ],
    [
      'thinking with its signature and redacted thinking; tool use; a failed tool result with an image',
      {
        messages: [
          { role: 'user', content: 'Screenshot?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Take one.', signature: 'EqQBCkYIBxgC' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'tool_use', id: 'toolu_1', name: 'shot', input: { full: true } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                is_error: true,
                content: [
                  { type: 'text', text: 'partial' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
                ],
              },
            ],
          },
        ],
      },
      {
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Screenshot?' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'thinking', text: 'Take one.', signature: 'EqQBCkYIBxgC' },
              { type: 'redacted-thinking', data: 'opaque' },
              { type: 'tool-call', id: 'toolu_1', name: 'shot', arguments: '{"full":true}' },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                type: 'tool-result',
                callId: 'toolu_1',
                output: 'partial',
                isError: true,
                content: [
                  { type: 'text', text: 'partial' },
                  { type: 'image', url: 'data:image/png;base64,AAA' },
                ],
              },
            ],
          },
        ],
      },
    ],
    [
      'thinking budget with its effort bucket, tool choice, stop, sampling, structured output, user id',
      {
        max_tokens: 8000,
        messages: [{ role: 'user', content: 'Hi' }],
        thinking: { type: 'enabled', budget_tokens: 3000 },
        tools: [{ name: 'weather', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stop_sequences: ['END'],
        temperature: 1,
        top_k: 5,
        output_config: { format: { type: 'json_schema', schema } },
        metadata: { user_id: 'user-7' },
      },
      {
        reasoning: { effort: 'medium', budgetTokens: 3000 },
        toolChoice: 'required',
        parallelToolCalls: false,
        sampling: { maxOutputTokens: 8000, temperature: 1, topK: 5, stop: ['END'] },
        responseFormat: { type: 'json-schema', name: 'structured_output', schema },
        user: 'user-7',
      },
    ],
    [
      'adaptive thinking is the middle effort; no max_tokens is the documented default',
      { messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'adaptive' } },
      { reasoning: { effort: 'medium' }, sampling: { maxOutputTokens: 4096 } },
    ],
  ];

  it.each(cases)('%s', (_name, body, expected) => {
    const { request, warnings } = readMessages(body);
    expect(request).toMatchObject(expected);
    expect(warnings).toEqual([]);
  });

  it('names what it drops after the target: server tools, file sources, unknown blocks, request fields', () => {
    const { request, warnings } = readMessages({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'file', file_id: 'file_1' } },
            { type: 'search_result', source: 'x', title: 't', content: [] },
            { type: 'text', text: 'Hi' },
          ],
        },
      ],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      container: 'c1',
    });
    expect(request.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]);
    expect(request.tools).toEqual([]);
    expect(warnings).toEqual([
      'image with a file source dropped: Target takes URLs or inline data',
      'search_result block dropped: no Target equivalent',
      'server tool web_search dropped: Target runs no Anthropic server tools',
      'container dropped: no Target equivalent',
    ]);
  });

  it('cache breakpoints come back as cache_control from the anthropic writer, ttl kept', () => {
    const { request } = readMessages({
      system: [{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: ephemeral }] }],
      tools: [{ name: 'read', input_schema: { type: 'object' }, cache_control: ephemeral }],
    });
    const { body } = writeMessagesRequest(request);
    expect(body['system']).toEqual([{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(body['tools']).toEqual([
      { name: 'read', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it("the anthropic writer drops thinking a Gemini channel signed (after a failover) and keeps Claude's", () => {
    const { request } = readMessages({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Gemini thought', signature: 'gemini-next:c2lnbmVk' },
            { type: 'thinking', thinking: 'Claude thought', signature: 'RXVjbGFpcmU=' },
            { type: 'text', text: 'Hello' },
          ],
        },
        { role: 'user', content: 'More' },
      ],
    });
    const { body } = writeMessagesRequest(request);
    expect((body['messages'] as Array<{ content: unknown }>)[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Claude thought', signature: 'RXVjbGFpcmU=' },
      { type: 'text', text: 'Hello' },
    ]);
  });
});
