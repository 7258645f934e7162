/**
 * The official `openai` client against `/v1/chat/completions` served by an anthropic channel: what the
 * upstream receives, and what the client gets back, whole and streamed.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { UPSTREAM_KEY_ANTHROPIC } from '../support/gateway-harness.ts';
import { type ConversionGateway, startConversionGateway } from './support/gateway-clients.ts';
import { checkOpenAIStream } from './support/openai-stream-rules.ts';
import { readFrames } from './support/read-frames.ts';

let gateway: ConversionGateway;
const model = 'claude-sonnet-4-5';
const hello = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Say hello' },
];
const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

beforeAll(async () => {
  gateway = await startConversionGateway('chat-on-anthropic@example.com');
});
afterAll(async () => gateway.harness.stop());
beforeEach(() => gateway.harness.upstream.reset());

const sent = () => gateway.harness.upstream.requests[0]!;

describe('non-streamed', () => {
  it('sends a Messages request and answers with a chat completion', async () => {
    const completion = await gateway.openai.chat.completions.create({
      model,
      messages: hello,
      temperature: 0.2,
      stop: 'END',
    });
    const expected = loadJsonFixture('anthropic-text').body as any;
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(expected.model);
    expect(completion.choices[0]!.message.content).toBe(expected.content[0].text);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 12, total_tokens: 26 });
    expect(sent().path).toBe('/v1/messages');
    expect(sent().headers['x-api-key']).toBe(UPSTREAM_KEY_ANTHROPIC);
    expect(sent().headers['anthropic-version']).toBe('2023-06-01');
    expect(sent().body).toEqual({
      model,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      max_tokens: 4096,
      temperature: 0.2,
      stop_sequences: ['END'],
    });
  });

  it('relays a tool-call round trip', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await gateway.openai.chat.completions.create({ model, messages, tools: [weatherTool] });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '18°C, sunny' });
    const second = await gateway.openai.chat.completions.create({ model, messages, tools: [weatherTool] });
    expect(second.choices[0]!.message.content).toBe('It is 18°C and sunny in Paris.');
    const [, assistant, results] = (gateway.harness.upstream.requests[1]!.body as any).messages;
    expect(assistant.content).toEqual([
      { type: 'tool_use', id: call.id, name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(results.content).toEqual([{ type: 'tool_result', tool_use_id: call.id, content: '18°C, sunny' }]);
  });

  it('sends an image URL as a URL source', async () => {
    const completion = await gateway.openai.chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toMatch(/tabby cat/);
    expect((sent().body as any).messages[0].content[1]).toEqual({
      type: 'image',
      source: { type: 'url', url: 'https://example.com/cat.png' },
    });
  });

  it('refuses n > 1 with a 400 naming n, before calling the upstream', async () => {
    const error = await gateway.openai.chat.completions
      .create({ model, messages: hello, n: 2 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('n');
    expect(error.type).toBe('invalid_request_error');
    expect(gateway.harness.upstream.requests).toHaveLength(0);
  });

  it('names each dropped kind of content once in x-gateway-warnings', async () => {
    const audio = { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } };
    const response = await gateway.post('/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: [audio, audio, { type: 'text', text: 'Hi' }] }],
    });
    expect(response.headers.get('x-gateway-warnings')).toBe('input_audio part dropped: Anthropic has no equivalent');
  });

  it('names dropped parameters in x-gateway-warnings', async () => {
    const response = await gateway.post('/v1/chat/completions', {
      model,
      messages: hello,
      presence_penalty: 1,
      seed: 3,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-warnings')).toBe(
      'presence_penalty dropped: no Anthropic equivalent; seed dropped: no Anthropic equivalent',
    );
  });

  it('temperature and top_p together: the upstream gets the temperature only, and the client a warning', async () => {
    const response = await gateway.post('/v1/chat/completions', {
      model,
      messages: hello,
      temperature: 0.3,
      top_p: 0.8,
    });
    expect(response.status).toBe(200);
    expect(sent().body).toMatchObject({ temperature: 0.3 });
    expect(sent().body).not.toHaveProperty('top_p');
    expect(response.headers.get('x-gateway-warnings')).toBe(
      'top_p dropped: Anthropic models refuse temperature and top_p together, temperature kept',
    );
  });

  it('/v1/messages on the same anthropic channel passes temperature and top_p through as the client sent them', async () => {
    const response = await gateway.post('/v1/messages', {
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hello' }],
      temperature: 0.3,
      top_p: 0.8,
    });
    expect(response.status).toBe(200);
    expect(sent().body).toMatchObject({ temperature: 0.3, top_p: 0.8 });
    expect(response.headers.get('x-gateway-warnings')).toBeNull();
  });

  it('a trailing empty user message reaches the upstream as a user turn, not as an assistant prefill', async () => {
    const response = await gateway.post('/v1/chat/completions', {
      model,
      messages: [
        { role: 'user', content: 'Tell me a story.' },
        { role: 'assistant', content: 'Once upon a time' },
        { role: 'user', content: '' },
      ],
    });
    expect(response.status).toBe(200);
    expect((sent().body as any).messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: '(empty message)' }],
    });
    expect(response.headers.get('x-gateway-warnings')).toMatch(/empty user message/);
  });
});

describe('streamed', () => {
  it('streams through chat.completions.stream().finalChatCompletion()', async () => {
    const stream = gateway.openai.chat.completions.stream({ model, messages: hello });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Hello! How can I help you today?');
    expect(final.choices[0]!.finish_reason).toBe('stop');
    expect(final.model).toBe('claude-sonnet-4-5-20250929');
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect((sent().body as any).stream).toBe(true);
  });

  it.each([true, false])('keeps every chunk rule on the wire, include_usage %s', async (includeUsage) => {
    gateway.harness.upstream.next('parallel-tool-calls');
    const response = await gateway.post('/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: 'Weather in Paris and London?' }],
      tools: [weatherTool],
      stream: true,
      ...(includeUsage && { stream_options: { include_usage: true } }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { violations, completion } = checkOpenAIStream(await readFrames(response), { includeUsage });
    expect(violations).toEqual([]);
    expect(completion.finishReason).toBe('tool_calls');
    expect(completion.toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_weather']);
    if (includeUsage) expect(completion.usage).toMatchObject({ prompt_tokens: 603, completion_tokens: 115 });
  });

  it('streams parallel tool calls with per-call indexes the SDK accumulates', async () => {
    gateway.harness.upstream.next('parallel-tool-calls');
    const final = await gateway.openai.chat.completions
      .stream({ model, messages: [{ role: 'user', content: 'Paris and London?' }], tools: [weatherTool] })
      .finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((call) => JSON.parse(call.function.arguments).city)).toEqual(['Paris', 'London']);
    expect(final.choices[0]!.message.content).toBe("I'll check the weather in both cities.");
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });
});
