/**
 * The official SDKs' helpers against the gateway in both directions: the openai helpers against an
 * anthropic channel (stream + finalChatCompletion, runTools with a zod function, parse with
 * zodResponseFormat), the @anthropic-ai/sdk helpers against an openai channel (stream + finalMessage,
 * the tool runner with a zod tool, thinking). Every helper validates what it receives as it goes.
 */
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ConversionGateway, startConversionGateway } from './support/gateway-clients.ts';

let gateway: ConversionGateway;
const weatherArguments = z.object({ city: z.string() });

beforeAll(async () => {
  gateway = await startConversionGateway('sdk-helpers@example.com');
});
afterAll(async () => gateway.harness.stop());
beforeEach(() => gateway.harness.upstream.reset());

describe('openai helpers, anthropic channel', () => {
  const model = 'claude-sonnet-4-5';
  const ask = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

  it('chat.completions.stream(...).finalChatCompletion()', async () => {
    const final = await gateway.openai.chat.completions.stream({ model, messages: ask }).finalChatCompletion();
    expect(final.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello! How can I help you today?' });
    expect(final.choices[0]!.finish_reason).toBe('stop');
  });

  for (const stream of [false, true]) {
    it(`runTools with a zod function, stream ${stream}`, async () => {
      const calls: Array<{ city: string }> = [];
      const getWeather = zodFunction({
        name: 'get_weather',
        parameters: weatherArguments,
        function: (input) => {
          calls.push(input);
          return { city: input.city, temperature: '18°C', sky: 'sunny' };
        },
      });
      const body = { model, messages: ask, tools: [getWeather] };
      const runner = stream
        ? gateway.openai.chat.completions.runTools({ ...body, stream: true })
        : gateway.openai.chat.completions.runTools(body);
      const content = await runner.finalContent();
      expect(calls).toEqual([{ city: 'Paris' }]);
      expect(content).toBe('It is 18°C and sunny in Paris.');
      const [first, second] = gateway.harness.upstream.requests.map((request) => request.body as any);
      expect(first.tools[0]).toMatchObject({ name: 'get_weather', input_schema: { type: 'object' } });
      expect(second.messages.at(-1).content[0]).toMatchObject({
        type: 'tool_result',
        content: JSON.stringify({ city: 'Paris', temperature: '18°C', sky: 'sunny' }),
      });
    });
  }

  it('chat.completions.parse with zodResponseFormat: the answer tool comes back as parsed content', async () => {
    // The schema is named get_weather, so the fake upstream's recorded tool call is the answer.
    const completion = await gateway.openai.chat.completions.parse({
      model,
      messages: ask,
      response_format: zodResponseFormat(weatherArguments, 'get_weather'),
    });
    const message = completion.choices[0]!.message;
    expect(message.parsed).toEqual({ city: 'Paris' });
    expect(message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect((gateway.harness.upstream.requests[0]!.body as any).tool_choice).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
  });

  it('chat.completions.stream with zodResponseFormat parses the streamed answer', async () => {
    const final = await gateway.openai.chat.completions
      .stream({ model, messages: ask, response_format: zodResponseFormat(weatherArguments, 'get_weather') })
      .finalChatCompletion();
    expect(final.choices[0]!.message.parsed).toEqual({ city: 'Paris' });
    expect(final.choices[0]!.finish_reason).toBe('stop');
  });
});

describe('@anthropic-ai/sdk helpers, openai channel', () => {
  const model = 'gpt-4o-mini';
  const ask = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

  it('messages.stream(...).finalMessage()', async () => {
    const final = await gateway.anthropic.messages.stream({ model, max_tokens: 256, messages: ask }).finalMessage();
    expect(final).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
      stop_reason: 'end_turn',
    });
  });

  for (const stream of [false, true]) {
    it(`a tool use round trip through the tool runner with a zod tool, stream ${stream}`, async () => {
      const calls: Array<{ city: string }> = [];
      const getWeather = betaZodTool({
        name: 'get_weather',
        description: 'Current weather',
        inputSchema: weatherArguments,
        run: (input) => {
          calls.push(input);
          return '18°C, sunny';
        },
      });
      const runner = gateway.anthropic.beta.messages.toolRunner({
        model,
        max_tokens: 512,
        messages: ask,
        tools: [getWeather],
        stream,
      });
      const final = await runner.runUntilDone();
      expect(calls).toEqual([{ city: 'Paris' }]);
      expect(final.content).toMatchObject([{ type: 'text', text: 'It is 18°C and sunny in Paris.' }]);
      const [first, second] = gateway.harness.upstream.requests.map((request) => request.body as any);
      expect(first.tools[0].function).toMatchObject({ name: 'get_weather', parameters: { type: 'object' } });
      expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: '18°C, sunny' });
    });
  }

  it('thinking through the -thinking suffix, streamed', async () => {
    gateway.harness.upstream.next('thinking');
    const final = await gateway.anthropic.messages
      .stream({ model: `${model}-thinking`, max_tokens: 4096, messages: ask })
      .finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect((gateway.harness.upstream.requests[0]!.body as any).reasoning_effort).toBe('medium');
  });
});
