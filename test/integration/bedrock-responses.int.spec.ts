/**
 * The official `openai` client's Responses calls through the gateway to bedrock channels on a fake
 * Bedrock runtime that verifies SigV4 signatures: whole and streamed replies (the stream in AWS's
 * binary event-stream framing), a tool loop, reasoning with its signature and thinking_to_content,
 * usage recorded from Bedrock's counts, Bedrock's errors before and inside the stream in the
 * client's format, and the channel's AWS secrets kept out of every answer.
 */
import type OpenAI from 'openai';
import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bedrockReply, bedrockStreamEvents, encodeEntry } from '../fake-upstream/bedrock-fixtures.ts';
import {
  AWS_CREDENTIAL,
  BEDROCK_API_KEY,
  type BedrockGateway,
  CLAUDE_ID,
  eventually,
  REGION,
  startBedrockGateway,
} from './bedrock-support.ts';

let gateway: BedrockGateway;
const sent = (index = 0) => gateway.bedrock.requests[index]!;
const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];
const streamedText = (name: string) =>
  bedrockStreamEvents(name)
    .flatMap((entry: any) => (entry.payload?.delta?.text ? [entry.payload.delta.text] : []))
    .join('');

beforeAll(async () => {
  gateway = await startBedrockGateway('bedrock-responses@example.com');
});
afterAll(async () => {
  await gateway.harness.stop();
  await gateway.bedrock.close();
});
beforeEach(() => {
  gateway.bedrock.reset();
  gateway.published.length = 0;
});

describe('bedrock channel, /v1/responses', () => {
  it('signs the Converse call with SigV4 and answers a Responses object, usage recorded from Bedrock', async () => {
    const response = await gateway.openai.responses.create({
      model: 'claude-bedrock',
      instructions: 'Be brief.',
      input: 'Say hello',
      max_output_tokens: 256,
    });
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe(bedrockReply('text').output.message.content[0].text);
    expect(response.usage).toMatchObject({ input_tokens: 13, output_tokens: 11, total_tokens: 24 });
    expect(sent().path).toBe(`/model/${encodeURIComponent(CLAUDE_ID)}/converse`);
    expect(sent().modelId).toBe(CLAUDE_ID);
    expect(sent().body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Say hello' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 256 },
    });
    // The fake answers 403 unless the signature verifies; these are what it verified.
    expect(sent().headers['authorization']).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_CREDENTIAL.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, `),
    );
    expect(sent().headers['x-amz-security-token']).toBe(AWS_CREDENTIAL.sessionToken);
    const usage = await eventually(() => gateway.published.find((event) => event.type === 'usage.recorded'));
    expect(usage.body).toMatchObject({ promptTokens: 13, completionTokens: 11 });
  });

  it('sends a Bedrock API key as a bearer token', async () => {
    const response = await gateway.openai.responses.create({ model: 'nova-bedrock', input: 'Say hello' });
    expect(response.output_text).toBeTruthy();
    expect(sent().headers['authorization']).toBe(`Bearer ${BEDROCK_API_KEY}`);
    expect(sent().modelId).toBe('us.amazon.nova-pro-v1:0');
  });

  it('streams: ConverseStream event-stream frames become output_text deltas, finalResponse() with usage', async () => {
    const stream = gateway.openai.responses.stream({ model: 'claude-bedrock', input: 'Say hello' });
    let deltas = '';
    stream.on('response.output_text.delta', (event) => {
      deltas += event.delta;
    });
    for await (const _event of stream) {
      // drained for the deltas above
    }
    const final = await stream.finalResponse();
    expect(sent().path).toBe(`/model/${encodeURIComponent(CLAUDE_ID)}/converse-stream`);
    expect(sent().headers['accept']).toBe('application/vnd.amazon.eventstream');
    expect(deltas).toBe(streamedText('text-stream'));
    expect(final.output_text).toBe(deltas);
    expect(final.usage).toMatchObject({ input_tokens: 14, output_tokens: 12 });
    const usage = await eventually(() => gateway.published.find((event) => event.type === 'usage.recorded'));
    expect(usage.body).toMatchObject({ promptTokens: 14, completionTokens: 12 });
  });

  it('runs a two-step tool loop, whole and streamed', async () => {
    for (const stream of [false, true]) {
      gateway.bedrock.reset();
      const first = stream
        ? await gateway.openai.responses
            .stream({ model: 'claude-bedrock', input: 'Weather in Paris?', tools })
            .finalResponse()
        : await gateway.openai.responses.create({ model: 'claude-bedrock', input: 'Weather in Paris?', tools });
      const call = first.output.find(
        (item) => item.type === 'function_call',
      ) as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
      expect(sent().body.toolConfig.tools[0].toolSpec).toMatchObject({
        name: 'get_weather',
        inputSchema: { json: tools[0]!.parameters },
      });
      const second = await gateway.openai.responses.create({
        model: 'claude-bedrock',
        tools,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: '18°C, sunny' },
        ],
      });
      expect(second.output_text).toBe(bedrockReply('tool-result-reply').output.message.content[0].text);
      expect(sent(1).body.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: call.call_id, name: 'get_weather', input: { city: 'Paris' } } }],
        },
        { role: 'user', content: [{ toolResult: { toolUseId: call.call_id, content: [{ text: '18°C, sunny' }] } }] },
      ]);
    }
  });

  it("asks Claude for thinking and hands its signature back as the reasoning item's encrypted_content", async () => {
    const response = await gateway.openai.responses.create({
      model: 'claude-bedrock',
      input: 'Say hello',
      reasoning: { effort: 'low' },
    });
    expect(sent().body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    const thought = bedrockReply('thinking').output.message.content[0].reasoningContent.reasoningText;
    expect(response.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: thought.text }],
      encrypted_content: thought.signature,
    });
    expect(response.output_text).toBe('Hello there!');
    expect(response.usage).toMatchObject({
      input_tokens: 47 + 1200 + 55,
      input_tokens_details: { cached_tokens: 1200 },
    });
    // The reasoning item sent back goes to Bedrock signed, before the next turn.
    await gateway.openai.responses.create({
      model: 'claude-bedrock',
      input: [{ role: 'user', content: 'Say hello' }, response.output[0] as any, { role: 'user', content: 'Again' }],
    });
    expect(sent(1).body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ reasoningContent: { reasoningText: { text: thought.text, signature: thought.signature } } }],
    });
  });

  it('streams reasoning, and thinking_to_content turns it into <think> text', async () => {
    const final = await gateway.openai.responses
      .stream({ model: 'claude-bedrock', input: 'Say hello', reasoning: { effort: 'low' } })
      .finalResponse();
    expect(final.output[0]).toMatchObject({
      type: 'reasoning',
      encrypted_content: 'ErUBCkgIBhABGAIiQNZ0t4mJ8W6c1bedrockStreamSignatureEXAMPLEz8Kq1Lw3Yx',
    });
    const inline = await gateway.openai.responses.create({
      model: 'claude-bedrock-think',
      input: 'Say hello',
      reasoning: { effort: 'low' },
    });
    expect(inline.output_text).toMatch(/^<think>\s*The user says hello\..*<\/think>\s*Hello there!$/s);
  });
});

describe('bedrock errors', () => {
  it("maps ValidationException to a 400 with Bedrock's message", async () => {
    gateway.bedrock.next('error-400');
    const error = await gateway.openai.responses
      .create({ model: 'claude-bedrock', input: 'x' })
      .catch((thrown) => thrown);
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(400);
    expect(error.message).toContain('text content blocks must be non-empty');
  });

  it('maps AccessDeniedException to a credentials error, ThrottlingException to 429, ServiceUnavailable to 503', async () => {
    for (const [fixture, status, pattern] of [
      ['error-403', 502, /refused this channel's credentials \(HTTP 403\)/],
      ['error-429', 429, /rate limiting requests: Too many requests/],
      ['error-503', 503, /overloaded \(HTTP 503\): Bedrock is unable/],
      ['error-408', 504, /timed out: Model has timed out/],
    ] as const) {
      gateway.bedrock.next(fixture);
      const error = await gateway.openai.responses
        .create({ model: 'claude-bedrock', input: 'x' })
        .catch((thrown) => thrown);
      expect(error.status, fixture).toBe(status);
      expect(error.message).toMatch(pattern);
    }
  });

  it("takes the channel's AWS secrets out of an error that echoes them", async () => {
    gateway.bedrock.next('error-400-echo');
    const response = await fetch(`${gateway.harness.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-bedrock', input: 'x' }),
    });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(AWS_CREDENTIAL.secretAccessKey);
    expect(text).not.toContain(AWS_CREDENTIAL.sessionToken);
    const completed = await eventually(() => gateway.published.find((event) => event.type === 'request.completed'));
    expect(JSON.stringify(completed)).not.toContain(AWS_CREDENTIAL.secretAccessKey);
  });

  it('turns an exception inside the stream into a Responses error event and records it', async () => {
    gateway.bedrock.next('midstream-error');
    const response = await fetch(`${gateway.harness.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-bedrock', input: 'x', stream: true }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('event: response.output_text.delta');
    expect(text).toMatch(/event: error\ndata: .*throttlingException: Too many tokens/);
    const completed = await eventually(() => gateway.published.find((event) => event.type === 'request.completed'));
    expect(completed.body).toMatchObject({ status: 200, errorType: 'rate_limit_error' });
  });

  it('refuses a stream that is not an AWS event stream, before the 200', async () => {
    gateway.bedrock.next('text', { contentType: 'text/event-stream' });
    const error = await gateway.openai.responses
      .create({ model: 'claude-bedrock', input: 'x', stream: true })
      .catch((thrown) => thrown);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/text\/event-stream, not an event stream/);
  });

  it('ends a stream whose frame is corrupt, or is SSE text, with an error instead of passing it on', async () => {
    const corrupt = encodeEntry({
      event: 'contentBlockDelta',
      payload: { contentBlockIndex: 0, delta: { text: 'Hi' } },
    });
    corrupt[corrupt.length - 6]! ^= 0xff;
    for (const [rawStream, pattern] of [
      [
        Buffer.concat([encodeEntry({ event: 'messageStart', payload: { role: 'assistant' } }), corrupt]),
        /malformed event-stream message/,
      ],
      // `data` read as a length is 1.7 GB: refused from the length alone, nothing set aside for it.
      [Buffer.from('data: {"not":"aws"}\n\n'), /upstream_frame_too_large/],
    ] as const) {
      gateway.bedrock.next('text', { rawStream });
      const response = await fetch(`${gateway.harness.baseUrl}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-bedrock', input: 'x', stream: true }),
      });
      const text = await response.text();
      expect(text).toMatch(/event: error\ndata: /);
      expect(text).toMatch(pattern);
      expect(text).not.toContain('"not":"aws"');
    }
  });
});
