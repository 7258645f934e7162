/**
 * What the newest agent requests become on converted channels: a system message in the conversation
 * (in place for OpenAI-format kinds; moved to the system prompt, with a warning, for Anthropic,
 * Gemini and Bedrock), adaptive thinking with `output_config.effort` (OpenAI's reasoning effort,
 * Anthropic's thinking budget, Gemini's thinking config), fields no kind has (dropped, with a
 * warning), and Responses namespace tools (flattened, their calls named back).
 */
import { describe, expect, it } from 'vitest';
import { messagesRequestSchema } from '../../contracts/anthropic/messages-request.ts';
import type { ChannelType } from '../../contracts/channel-type.ts';
import { responsesRequestSchema } from '../../contracts/openai/responses-request.ts';
import { chatCompletionsFormat } from '../../gateway/providers/chat-completions/chat-completions-providers.ts';
import { requestConverter } from '../../gateway/providers/converted-request.ts';
import { upstreamKinds } from '../../gateway/providers/kinds.ts';
import { messagesFormat } from '../../gateway/providers/messages/messages-providers.ts';
import { clientCall, clientTools } from '../../gateway/providers/responses/client-tools.ts';
import { readResponsesRequest } from '../../gateway/providers/responses/read-responses-request.ts';
import { writeResponsesReply } from '../../gateway/providers/responses/write-responses-reply.ts';

const convert = (format: typeof messagesFormat, type: ChannelType, body: Record<string, unknown>) => {
  const kind = upstreamKinds[type];
  const target = { model: String(body['model']), stream: body['stream'] === true };
  return requestConverter((client, asked) => format.read(client, kind.label ?? type, asked), kind)(body, target);
};

const midSystem = {
  model: 'm',
  max_tokens: 2048,
  system: 'You are a coder.',
  messages: [
    { role: 'user', content: 'Fix the test.' },
    { role: 'system', content: 'Answer in one line.' },
    { role: 'user', content: 'Go.' },
  ],
};

describe('a system message in the conversation', () => {
  it('stays in place on an OpenAI-format channel', () => {
    for (const type of ['openai', 'azure'] as const) {
      const { body, warnings } = convert(messagesFormat, type, midSystem);
      expect(body['messages']).toEqual([
        { role: 'system', content: 'You are a coder.' },
        { role: 'user', content: 'Fix the test.' },
        { role: 'system', content: 'Answer in one line.' },
        { role: 'user', content: 'Go.' },
      ]);
      expect(warnings).toEqual([]);
    }
  });

  it('moves to the system prompt, with a warning, where the kind takes instructions only there', () => {
    const anthropic = convert(chatCompletionsFormat, 'anthropic', {
      model: 'm',
      messages: [
        { role: 'system', content: 'You are a coder.' },
        { role: 'user', content: 'Fix the test.' },
        { role: 'developer', content: 'Answer in one line.' },
        { role: 'user', content: 'Go.' },
      ],
    });
    expect(anthropic.body['system']).toEqual([
      { type: 'text', text: 'You are a coder.' },
      { type: 'text', text: 'Answer in one line.' },
    ]);
    // The two user turns it stood between are one turn now, as Anthropic wants.
    expect(anthropic.body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Fix the test.' },
          { type: 'text', text: 'Go.' },
        ],
      },
    ]);
    expect(anthropic.warnings).toContain(
      'system messages in the conversation moved to the system prompt: Anthropic takes them only there',
    );
    const gemini = convert(messagesFormat, 'gemini', midSystem);
    expect(gemini.body['systemInstruction']).toEqual({
      parts: [{ text: 'You are a coder.' }, { text: 'Answer in one line.' }],
    });
    expect(gemini.warnings.join()).toContain('moved to the system prompt: Gemini');
    const bedrock = convert(messagesFormat, 'bedrock', midSystem);
    expect(bedrock.body['system']).toEqual([{ text: 'You are a coder.' }, { text: 'Answer in one line.' }]);
    expect(bedrock.warnings.join()).toContain('moved to the system prompt: Bedrock');
  });

  it('is part of the system prompt when it comes before the conversation', () => {
    const { body, warnings } = convert(messagesFormat, 'gemini', {
      model: 'm',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(body['systemInstruction']).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(warnings).toEqual([]);
  });
});

describe('adaptive thinking with output_config.effort', () => {
  const adaptive = (effort: string) => ({
    model: 'm',
    max_tokens: 8000,
    messages: [{ role: 'user', content: 'Think.' }],
    thinking: { type: 'adaptive' },
    output_config: { effort },
    context_management: { edits: [] },
  });

  it('is the reasoning effort on OpenAI, a thinking budget on Anthropic, a thinking config on Gemini', () => {
    expect(convert(messagesFormat, 'openai', adaptive('high')).body['reasoning_effort']).toBe('high');
    expect(convert(messagesFormat, 'openai', adaptive('max')).body['reasoning_effort']).toBe('high');
    expect(convert(messagesFormat, 'openai', adaptive('low')).body['reasoning_effort']).toBe('low');
    const anthropic = convert(chatCompletionsFormat, 'anthropic', {
      model: 'm',
      messages: [{ role: 'user', content: 'Think.' }],
      reasoning_effort: 'high',
    });
    expect(anthropic.body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4096 });
    const gemini = convert(messagesFormat, 'gemini', adaptive('low')).body as any;
    expect(gemini.generationConfig.thinkingConfig).toMatchObject({ includeThoughts: true });
  });

  it('drops what no kind has, each with a warning: context_management, an unknown effort, unknown fields', () => {
    const { warnings, body } = convert(messagesFormat, 'openai', {
      ...adaptive('extreme'),
      speed: 'fast',
      output_config: { effort: 'extreme', verbosity: 'low' },
    });
    expect(body['reasoning_effort']).toBe('medium');
    expect(warnings).toEqual([
      'output_config.effort extreme dropped: OpenAI knows low, medium and high',
      'context_management dropped: no OpenAI equivalent',
      'speed dropped: no OpenAI equivalent',
      'output_config.verbosity dropped: no OpenAI equivalent',
    ]);
  });

  it('the Messages contract still types what a converted channel reads', () => {
    expect(messagesRequestSchema.safeParse({ ...adaptive('low'), thinking: { type: 'enabled' } }).success).toBe(false);
  });
});

describe('Responses namespace tools', () => {
  const body = responsesRequestSchema.parse({
    model: 'm',
    input: [
      { role: 'user', content: 'Start an agent.' },
      { role: 'developer', content: 'Use the sub-agents.' },
    ],
    tools: [
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object' } }, { type: 'web_search' }],
      },
    ],
    tool_choice: { type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' },
  });

  it('flattens the functions, forces one by its flat name, and keeps a later developer message in place', () => {
    const { request, warnings } = readResponsesRequest(body, { target: 'OpenAI' });
    expect(request.tools.map((tool) => tool.name)).toEqual(['multi_agent_v1__spawn_agent']);
    expect(request.toolChoice).toEqual({ name: 'multi_agent_v1__spawn_agent' });
    expect(request.turns.map((turn) => turn.role)).toEqual(['user', 'system']);
    expect(warnings).toEqual(['web_search tool in namespace multi_agent_v1 dropped: OpenAI cannot run it']);
  });

  it('names a call of a flattened function as the client knows it; other names stay', () => {
    const tools = clientTools(body);
    expect(clientCall('multi_agent_v1__spawn_agent', tools)).toEqual({
      name: 'spawn_agent',
      namespace: 'multi_agent_v1',
      custom: false,
    });
    expect(clientCall('shell', tools)).toEqual({ name: 'shell', custom: false });
    const reply = writeResponsesReply(
      {
        id: 'chatcmpl-1',
        model: 'm',
        blocks: [{ type: 'tool-call', id: 'call_1', name: 'multi_agent_v1__spawn_agent', arguments: '{}' }],
        finishReason: 'tool-calls',
        stopSequence: null,
        usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      body,
      0,
    );
    expect(reply.output[0]).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' });
  });
});
