/**
 * The gateway's bedrock kind against an independent mock of Bedrock Converse (@copilotkit/aimock),
 * so the kind is not only checked against fixtures written alongside it: aimock reads the Converse
 * request the gateway wrote (messages, tools) and answers in Converse's shapes, streams framed as
 * AWS event streams by its own encoder. Both SigV4 and API-key channels are sent (aimock forwards
 * signed requests unchecked, as it says).
 */
import Anthropic from '@anthropic-ai/sdk';
import { LLMock } from '@copilotkit/aimock';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { AWS_CREDENTIAL, CLAUDE_ID } from './bedrock-support.ts';

let mock: LLMock;
let harness: Harness;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  mock = new LLMock({ port: 0 });
  mock.onMessage('Say hello', { content: 'Hello from aimock!', usage: { input_tokens: 21, output_tokens: 5 } });
  mock.onMessage('Weather in Paris?', { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
  await mock.start();
  harness = await startHarness({
    configLines: [
      '  - name: aimock-bedrock-sigv4',
      '    type: bedrock',
      `    base_url: ${mock.url}`,
      '    region: us-east-1',
      `    access_key_id: ${AWS_CREDENTIAL.accessKeyId}`,
      `    secret_access_key: ${AWS_CREDENTIAL.secretAccessKey}`,
      '    models: [claude-aimock]',
      `    model_mapping: {claude-aimock: "${CLAUDE_ID}"}`,
      '  - name: aimock-bedrock-key',
      '    type: bedrock',
      `    base_url: ${mock.url}`,
      '    region: us-east-1',
      '    api_key: ABSKaimockExampleKey0123456789',
      '    models: [nova-aimock]',
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('bedrock-aimock@example.com');
  const key = (await console.createToken('aimock')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
});
afterAll(async () => {
  await harness.stop();
  await mock.stop();
});

const tool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('bedrock kind against aimock', () => {
  it('chat completions, whole and streamed, with the usage aimock reports', async () => {
    for (const model of ['claude-aimock', 'nova-aimock']) {
      const completion = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      expect(completion.choices[0]!.message.content).toBe('Hello from aimock!');
      expect(completion.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 5 });
    }
    const last = mock.getLastRequest()!;
    expect(last.path).toBe('/model/nova-aimock/converse');
    const stream = await openai.chat.completions.create({
      model: 'claude-aimock',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Hello from aimock!');
    expect(usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 5 });
    expect(mock.getLastRequest()!.path).toBe(`/model/${encodeURIComponent(CLAUDE_ID)}/converse-stream`);
  });

  it('tool calls through all three ingress formats, streamed and not', async () => {
    const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
    const whole = await openai.chat.completions.create({ model: 'claude-aimock', messages, tools: [tool] });
    expect(whole.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse((whole.choices[0]!.message.tool_calls![0] as any).function.arguments)).toEqual({ city: 'Paris' });
    const stream = await openai.chat.completions.create({
      model: 'claude-aimock',
      messages,
      tools: [tool],
      stream: true,
    });
    let argumentsText = '';
    for await (const chunk of stream)
      argumentsText += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    expect(JSON.parse(argumentsText)).toEqual({ city: 'Paris' });
    const message = await anthropic.messages
      .stream({
        model: 'claude-aimock',
        max_tokens: 100,
        messages,
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      })
      .finalMessage();
    expect(message.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { city: 'Paris' },
    });
    const response = await openai.responses.create({
      model: 'claude-aimock',
      input: 'Weather in Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters: tool.function.parameters, strict: false }],
    });
    expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'get_weather' });
  });

  it('an error aimock is told to answer reaches the client in its format', async () => {
    mock.nextRequestError(429, { message: 'Rate limited by aimock', type: 'rate_limit_error' });
    const error = await openai.chat.completions
      .create({ model: 'claude-aimock', messages: [{ role: 'user', content: 'Say hello' }] })
      .catch((thrown) => thrown);
    expect(error.status).toBe(429);
    expect(error.message).toContain('Rate limited by aimock');
  });
});
