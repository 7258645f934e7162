/**
 * Chat completions (the official `openai` client) and messages (the official `@anthropic-ai/sdk`)
 * through the gateway to bedrock channels on the fake Bedrock runtime: the same answers, usage and
 * errors as through the other kinds, streamed and not, tools included; the `-thinking` suffix asks
 * Claude on Bedrock for thinking and its signature reaches the Anthropic client.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bedrockReply, bedrockStreamEvents } from '../fake-upstream/bedrock-fixtures.ts';
import { type BedrockGateway, eventually, startBedrockGateway } from './bedrock-support.ts';

let gateway: BedrockGateway;
let anthropic: Anthropic;
const sent = (index = 0) => gateway.bedrock.requests[index]!;
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const streamedText = (name: string) =>
  bedrockStreamEvents(name)
    .flatMap((entry: any) => (entry.payload?.delta?.text ? [entry.payload.delta.text] : []))
    .join('');

beforeAll(async () => {
  gateway = await startBedrockGateway('bedrock-ingress@example.com');
  anthropic = new Anthropic({ baseURL: gateway.harness.baseUrl, apiKey: gateway.key, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.harness.stop();
  await gateway.bedrock.close();
});
beforeEach(() => {
  gateway.bedrock.reset();
  gateway.published.length = 0;
});

describe('chat completions to a bedrock channel', () => {
  it('answers with the text and Bedrock usage', async () => {
    const completion = await gateway.openai.chat.completions.create({
      model: 'claude-bedrock',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      max_tokens: 100,
    });
    expect(completion.choices[0]!.message.content).toBe(bedrockReply('text').output.message.content[0].text);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 11, total_tokens: 24 });
    expect(sent().body).toMatchObject({
      system: [{ text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ text: 'Say hello' }] }],
      inferenceConfig: { maxTokens: 100 },
    });
  });

  it('streams the text with the usage chunk', async () => {
    const stream = await gateway.openai.chat.completions.create({
      model: 'claude-bedrock',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: any = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(streamedText('text-stream'));
    expect(usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 12 });
    const recorded = await eventually(() => gateway.published.find((event) => event.type === 'usage.recorded'));
    expect(recorded.body).toMatchObject({ promptTokens: 14, completionTokens: 12 });
  });

  it('calls a tool, streamed and not, then reads its result', async () => {
    const whole = await gateway.openai.chat.completions.create({
      model: 'claude-bedrock',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
    });
    const call = whole.choices[0]!.message.tool_calls![0]! as any;
    expect(whole.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', function: { name: 'get_weather' } });
    const stream = await gateway.openai.chat.completions.create({
      model: 'claude-bedrock',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
      stream: true,
    });
    let argumentsText = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      argumentsText += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(JSON.parse(argumentsText)).toEqual({ city: 'Paris' });
    expect(finish).toBe('tool_calls');
    const answer = await gateway.openai.chat.completions.create({
      model: 'claude-bedrock',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '18°C' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe(bedrockReply('tool-result-reply').output.message.content[0].text);
    expect(sent(2).body.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ toolResult: { toolUseId: call.id, content: [{ text: '18°C' }] } }],
    });
  });

  it("gives Bedrock's errors in OpenAI's shape, before and inside the stream", async () => {
    gateway.bedrock.next('error-429');
    const refused = await gateway.openai.chat.completions
      .create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown) => thrown);
    expect(refused.status).toBe(429);
    expect(refused.error).toMatchObject({ type: 'rate_limit_exceeded' });
    gateway.bedrock.next('midstream-error');
    const response = await gateway.post('/v1/chat/completions', {
      model: 'claude-bedrock',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const text = await response.text();
    expect(text).toMatch(/data: \{"error":\{"message":"The upstream provider reported throttlingException/);
  });
});

describe('messages to a bedrock channel', () => {
  it('answers with the text and Bedrock usage, streamed and not', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-bedrock',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: bedrockReply('text').output.message.content[0].text }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 13, output_tokens: 11 });
    const stream = anthropic.messages.stream({
      model: 'claude-bedrock',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: streamedText('text-stream') }]);
    expect(final.usage).toMatchObject({ input_tokens: 14, output_tokens: 12 });
  });

  it('calls a tool with tool_use blocks', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-bedrock',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[1]).toEqual({
      type: 'tool_use',
      id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
      name: 'get_weather',
      input: { city: 'Paris' },
    });
  });

  it('turns the -thinking suffix into thinking on Bedrock and keeps the signature, streamed and not', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-bedrock-thinking',
      max_tokens: 2000,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(sent().body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1600 } });
    const thought = bedrockReply('thinking').output.message.content[0].reasoningContent.reasoningText;
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: thought.text, signature: thought.signature });
    const final = await anthropic.messages
      .stream({
        model: 'claude-bedrock-thinking',
        max_tokens: 2000,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .finalMessage();
    expect(final.content[0]).toMatchObject({
      type: 'thinking',
      signature: 'ErUBCkgIBhABGAIiQNZ0t4mJ8W6c1bedrockStreamSignatureEXAMPLEz8Kq1Lw3Yx',
    });
    // The signed thinking goes back to Bedrock with the next turn.
    await anthropic.messages.create({
      model: 'claude-bedrock-thinking',
      max_tokens: 2000,
      messages: [
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: message.content as any },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(sent(2).body.messages[1].content[0]).toEqual({
      reasoningContent: { reasoningText: { text: thought.text, signature: thought.signature } },
    });
  });

  it("gives Bedrock's errors in Anthropic's shape, before and inside the stream", async () => {
    gateway.bedrock.next('error-400');
    const refused = await anthropic.messages
      .create({ model: 'claude-bedrock', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown) => thrown);
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    gateway.bedrock.next('midstream-error');
    const response = await gateway.post('/v1/messages', {
      model: 'claude-bedrock',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const text = await response.text();
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"rate_limit_error"/);
  });
});
