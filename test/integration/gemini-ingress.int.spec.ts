/**
 * Chat Completions and Messages clients (the official `openai` and `@anthropic-ai/sdk`) through the
 * gateway to gemini channels, on the recorded-shape fake and on aimock's Gemini mock: whole and
 * streamed, a tool loop, thinking (the `-thinking` suffix, thinking_to_content), usage, and Google's
 * errors in each client's format. These need the generic chat-completions and messages ingress
 * (the `h-ingress` branch), which makes every kind serve every format.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { GEMINI_KEY, type GeminiGateway, startGeminiGateway } from './support/gemini-gateway.ts';

let gateway: GeminiGateway;
const sent = (index = 0) => gateway.gemini.requests[index]!;
const fixtureBody = (name: string) => loadJsonFixture(name).body as any;
const weatherTool: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const anthropicWeatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

beforeAll(async () => {
  gateway = await startGeminiGateway('gemini-ingress@example.com');
});
afterAll(async () => gateway.stop());
beforeEach(() => {
  gateway.gemini.reset();
  gateway.aimock.clearRequests();
});

describe('chat.completions on a gemini channel', () => {
  it('answers whole, with Gemini’s usage', async () => {
    const completion = await gateway.openai.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      max_tokens: 100,
    });
    const usage = fixtureBody('gemini-text').usageMetadata;
    expect(completion.choices[0]!.message.content).toBe('Hello! How can I help you today?');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: usage.promptTokenCount,
      completion_tokens: usage.candidatesTokenCount + usage.thoughtsTokenCount,
    });
    expect(sent().path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent().headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(sent().body).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }],
      generationConfig: { maxOutputTokens: 100 },
    });
  });

  it('streams, with the usage chunk when asked for', async () => {
    const stream = await gateway.openai.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello! How can I help you today?');
    expect(usage).toMatchObject({ prompt_tokens: 33, completion_tokens: 34 });
    expect(sent().query).toBe('?alt=sse');
  });

  it.each([false, true])('runs a tool loop (stream: %s)', async (stream) => {
    const first = await gateway.openai.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
    });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Paris?' },
      first.choices[0]!.message,
      { role: 'tool', tool_call_id: call.id, content: '{"temperature":18}' },
    ];
    let answer = '';
    if (stream) {
      for await (const chunk of await gateway.openai.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages,
        tools: [weatherTool],
        stream: true,
      }))
        answer += chunk.choices[0]?.delta.content ?? '';
    } else {
      answer = (
        await gateway.openai.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools: [weatherTool] })
      ).choices[0]!.message.content!;
    }
    expect(answer).toBe('It is 18 °C and sunny in Paris.');
    expect((sent(1).body as any).contents.at(-1)).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 18 } } }],
    });
  });

  it('reasoning_effort is a thinking budget; thought parts come back as reasoning_content', async () => {
    const completion = await gateway.openai.chat.completions.create({
      model: 'gemini-2.5-pro',
      messages: [{ role: 'user', content: 'What is 2 + 2?' }],
      reasoning_effort: 'low',
    });
    expect((sent().body as any).generationConfig.thinkingConfig).toEqual({
      thinkingBudget: 1024,
      includeThoughts: true,
    });
    expect((completion.choices[0]!.message as any).reasoning_content).toMatch(/Working out the sum/);
    expect(completion.choices[0]!.message.content).toBe('2 + 2 = 4.');
  });

  it('Google’s 429 is OpenAI’s rate-limit error', async () => {
    gateway.gemini.next('error-429');
    gateway.gemini.next('error-429');
    const error = await gateway.openai.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('on aimock: text and a tool call', async () => {
    const text = await gateway.openai.chat.completions.create({
      model: 'aimock-flash',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(text.choices[0]!.message.content).toBe('Hello from aimock Gemini.');
    const tool = await gateway.openai.chat.completions.create({
      model: 'aimock-flash',
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      tools: [weatherTool],
      stream: false,
    });
    expect((tool.choices[0]!.message.tool_calls![0] as any).function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Lyon"}',
    });
  });
});

describe('messages on a gemini channel', () => {
  it('answers whole, with Gemini’s usage in Anthropic’s terms', async () => {
    const message = await gateway.anthropic.messages.create({
      model: 'gemini-2.5-flash',
      max_tokens: 256,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    const usage = fixtureBody('gemini-text').usageMetadata;
    expect(message.content).toEqual([{ type: 'text', text: 'Hello! How can I help you today?' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({
      input_tokens: usage.promptTokenCount,
      output_tokens: usage.candidatesTokenCount + usage.thoughtsTokenCount,
    });
    expect(sent().body).toMatchObject({ systemInstruction: { parts: [{ text: 'Be brief.' }] } });
  });

  it('streams', async () => {
    const stream = gateway.anthropic.messages.stream({
      model: 'gemini-2.5-flash',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
    expect(final.usage.output_tokens).toBe(34);
  });

  it.each([false, true])('runs a tool loop (stream: %s)', async (stream) => {
    const first = await gateway.anthropic.messages.create({
      model: 'gemini-2.5-flash',
      max_tokens: 256,
      tools: [anthropicWeatherTool],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'gemini-2.5-flash',
      max_tokens: 256,
      tools: [anthropicWeatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temperature":18}' }] },
      ],
    };
    const answer = stream
      ? await gateway.anthropic.messages.stream(request).finalMessage()
      : await gateway.anthropic.messages.create(request);
    expect(answer.content[0]).toMatchObject({ type: 'text', text: 'It is 18 °C and sunny in Paris.' });
  });

  it('the -thinking suffix asks Gemini for thoughts, which come back as thinking blocks', async () => {
    const message = await gateway.anthropic.messages.create({
      model: 'gemini-2.5-pro-thinking',
      max_tokens: 2048,
      messages: [{ role: 'user', content: 'What is 2 + 2?' }],
    });
    expect(sent().path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    const thinking = (sent().body as any).generationConfig.thinkingConfig;
    expect(thinking.includeThoughts).toBe(true);
    expect(thinking.thinkingBudget).toBeGreaterThan(0);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: expect.stringMatching(/Working out/) });
    expect(message.content.at(-1)).toMatchObject({ type: 'text', text: '2 + 2 = 4.' });
  });

  it('thinking_to_content folds thoughts into the text', async () => {
    gateway.gemini.next('thinking');
    const message = await gateway.anthropic.messages.create({
      model: 'gemini-think',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'What is 2 + 2?' }],
    });
    expect(message.content.map((block) => block.type)).toEqual(['text']);
    expect((message.content[0] as Anthropic.TextBlock).text).toMatch(/^<think>[\s\S]*<\/think>\s*2 \+ 2 = 4\.$/);
  });

  it('Google’s 503 is Anthropic’s overloaded error', async () => {
    for (let attempt = 0; attempt < 3; attempt++) gateway.gemini.next('error-503');
    const error = await gateway.anthropic.messages
      .create({ model: 'gemini-2.5-flash', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toMatch(/overloaded/);
  });

  it('on aimock: text, streamed, and a tool call', async () => {
    const text = await gateway.anthropic.messages
      .stream({
        model: 'aimock-flash',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .finalMessage();
    expect(text.content[0]).toMatchObject({ type: 'text', text: 'Hello from aimock Gemini.' });
    const tool = await gateway.anthropic.messages.create({
      model: 'aimock-flash',
      max_tokens: 64,
      tools: [anthropicWeatherTool],
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
    });
    expect(tool.content.find((block) => block.type === 'tool_use')).toMatchObject({ input: { city: 'Lyon' } });
  });
});
