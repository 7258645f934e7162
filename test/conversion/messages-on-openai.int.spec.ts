/**
 * The official `@anthropic-ai/sdk` client against `/v1/messages` served by an openai channel: what the
 * upstream receives, and what the client gets back, whole and streamed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';
import { checkAnthropicStream } from './support/anthropic-stream-rules.ts';
import { type ConversionGateway, startConversionGateway } from './support/gateway-clients.ts';
import { readFrames } from './support/read-frames.ts';

let gateway: ConversionGateway;
const model = 'gpt-4o-mini';
const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'Say hello' }];
const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Current weather',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

beforeAll(async () => {
  gateway = await startConversionGateway('messages-on-openai@example.com');
});
afterAll(async () => gateway.harness.stop());
beforeEach(() => gateway.harness.upstream.reset());

const sent = () => gateway.harness.upstream.requests[0]!;

describe('non-streamed', () => {
  it('sends a Chat Completions request and answers with a message', async () => {
    const message = await gateway.anthropic.messages.create({
      model,
      max_tokens: 256,
      system: 'Be brief.',
      messages: hello,
    });
    const expected = loadJsonFixture('openai-text').body as any;
    expect(message.type).toBe('message');
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe(expected.model);
    expect(message.content).toEqual([{ type: 'text', text: expected.choices[0].message.content }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 21, output_tokens: 10 });
    expect(sent().path).toBe('/v1/chat/completions');
    expect(sent().headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY_OPENAI}`);
    expect(sent().body).toEqual({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      max_tokens: 256,
    });
  });

  it('relays a tool use round trip', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await gateway.anthropic.messages.create({ model, max_tokens: 512, messages, tools });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use')!;
    expect(toolUse).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18°C, sunny' }] },
    );
    const second = await gateway.anthropic.messages.create({ model, max_tokens: 512, messages, tools });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 18°C and sunny in Paris.' }]);
    const upstreamMessages = (gateway.harness.upstream.requests[1]!.body as any).messages;
    expect(upstreamMessages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: toolUse.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: toolUse.id, content: '18°C, sunny' },
    ]);
  });

  it('sends a base64 image as a data URL', async () => {
    const message = await gateway.anthropic.messages.create({
      model,
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect((message.content[0] as Anthropic.TextBlock).text).toMatch(/tabby cat/);
    expect((sent().body as any).messages[0].content[0]).toEqual({
      type: 'image_url',
      image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' },
    });
  });
});

describe('streamed', () => {
  it('streams through messages.stream().finalMessage(), asking the upstream for usage', async () => {
    const events: string[] = [];
    const stream = gateway.anthropic.messages.stream({ model, max_tokens: 256, messages: hello });
    stream.on('streamEvent', (event) => events.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello! How can I help you today?' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 23, output_tokens: 12 });
    expect(events[0]).toBe('message_start');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect((sent().body as any).stream_options).toEqual({ include_usage: true });
  });

  it.each(['text', 'tool-call', 'parallel-tool-calls', 'thinking'])(
    'keeps every event rule on the wire: %s',
    async (fixture) => {
      gateway.harness.upstream.next(fixture);
      const response = await gateway.post('/v1/messages', {
        model,
        max_tokens: 256,
        messages: hello,
        stream: true,
        tools,
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const { violations } = checkAnthropicStream(await readFrames(response));
      expect(violations).toEqual([]);
    },
  );

  it('streams a tool use as input_json_delta, and the SDK assembles the input', async () => {
    const deltas: string[] = [];
    const stream = gateway.anthropic.messages.stream({
      model,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather in Paris and London?' }],
      tools,
    });
    stream.on('inputJson', (partial) => deltas.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([
      { type: 'tool_use', id: 'call_Hx5nB2qW8eJr4tY6uK9pL3mV', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(deltas.join('')).toBe('{"city":"Paris"}');
  });

  it('interleaved fragments of two parallel tool calls: both inputs arrive whole through finalMessage', async () => {
    gateway.harness.upstream.next('interleaved-tool-calls');
    const stream = gateway.anthropic.messages.stream({
      model,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather in Paris, and the time in London?' }],
      tools,
    });
    const final = await stream.finalMessage();
    const expected = (loadJsonFixture('openai-interleaved-tool-calls').body as any).choices[0].message.tool_calls;
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual(
      expected.map((call: any) => ({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: JSON.parse(call.function.arguments),
      })),
    );
    expect(final.content.map((block) => (block as Anthropic.ToolUseBlock).input)).toEqual([
      { city: 'Paris', unit: 'celsius' },
      { timezone: 'Europe/London' },
    ]);
    expect(final.usage).toMatchObject({ input_tokens: 112, output_tokens: 57 });
  });

  it('interleaved tool calls keep every event rule on the wire', async () => {
    gateway.harness.upstream.next('interleaved-tool-calls');
    const response = await gateway.post('/v1/messages', {
      model,
      max_tokens: 256,
      messages: hello,
      stream: true,
      tools,
    });
    const { violations, result } = checkAnthropicStream(await readFrames(response));
    expect(violations).toEqual([]);
    expect(result.content.map((block) => block.input)).toEqual([
      { city: 'Paris', unit: 'celsius' },
      { timezone: 'Europe/London' },
    ]);
  });
});
