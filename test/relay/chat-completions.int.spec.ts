/**
 * The official `openai` client against the gateway in front of an OpenAI-format fake upstream:
 * replies, streams through the SDK helpers, tools, images, model mapping, and every error case.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';

let harness: Harness;
let openai: OpenAI;
let key: string;

beforeAll(async () => {
  harness = await startHarness();
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('chat-user@example.com');
  key = (await console.createToken('chat tests')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

const hello = [{ role: 'user' as const, content: 'Say hello' }];

function fixtureBody(name: string): Record<string, any> {
  return loadJsonFixture(name).body as Record<string, any>;
}

describe('POST /v1/chat/completions, relayed to an openai channel', () => {
  it('answers a plain text request with the upstream reply, model as the upstream named it', async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    const expected = fixtureBody('openai-text');
    expect(completion.model).toBe(expected.model);
    expect(completion.model).not.toBe('gpt-4o-mini');
    expect(completion.choices[0]!.message.content).toBe(expected.choices[0].message.content);
    expect(completion.usage).toEqual(expected.usage);
    const sent = harness.upstream.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY_OPENAI}`);
    expect(JSON.stringify(sent.headers)).not.toContain(key);
  });

  it('streams through the SDK helper and hides the usage chunk it did not ask for', async () => {
    const stream = openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: hello });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Hello! How can I help you today?');
    expect(final.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    expect(final.usage ?? null).toBeNull();
    // The gateway asked the upstream for usage for its own accounting.
    expect((harness.upstream.requests[0]!.body as any).stream_options).toEqual({ include_usage: true });
  });

  it('passes the usage chunk to a client that asked for it', async () => {
    const final = await openai.chat.completions
      .stream({ model: 'gpt-4o-mini', messages: hello, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.usage).toMatchObject({ prompt_tokens: 23, completion_tokens: 12, total_tokens: 35 });
  });

  it('forwards stream frames as they arrive, not after the upstream finishes', async () => {
    harness.upstream.next({ fixture: 'text-stream', chunkDelayMs: 150 });
    const started = performance.now();
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello, stream: true });
    const arrivals: number[] = [];
    for await (const _chunk of stream) arrivals.push(performance.now() - started);
    expect(arrivals.length).toBeGreaterThan(3);
    // Frames are spread over the upstream's pacing: the first long before the last.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(150 * (arrivals.length - 2));
  });

  it('sends the stream head on its own when the upstream is slow to its first chunk', async () => {
    harness.upstream.next({ fixture: 'text-stream', delayFirstChunkMs: 600 });
    const started = performance.now();
    const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: hello, stream: true }),
    });
    // The head leaves ~50 ms after the upstream's, long before the first chunk at 600 ms.
    const headersAt = performance.now() - started;
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    await reader.read();
    const firstChunkAt = performance.now() - started;
    expect(headersAt).toBeLessThan(400);
    expect(firstChunkAt).toBeGreaterThanOrEqual(590);
    await reader.cancel();
  });

  it('relays a tool call and the round trip with a tool-role result', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather in a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string', description: 'City name' } },
            required: ['city'],
          },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools, tool_choice: 'auto' });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(choice.message, {
      role: 'tool',
      tool_call_id: call.id,
      content: '{"temperature_c":18,"sky":"sunny"}',
    });
    const second = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
    expect(second.choices[0]!.message.content).toContain('Paris');
    const relayed = harness.upstream.requests[1]!.body as any;
    expect(relayed.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: call.id,
      content: '{"temperature_c":18,"sky":"sunny"}',
    });
    expect(relayed.tools).toEqual(tools);
  });

  it('streams parallel tool calls through the helper with both calls intact', async () => {
    harness.upstream.next('parallel-tool-calls');
    const final = await openai.chat.completions
      .stream({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Paris and Tokyo?' }],
        tools: [{ type: 'function', function: { name: 'get_weather' } }],
      })
      .finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(2);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('relays an image part unchanged', async () => {
    const url = 'https://upload.wikimedia.org/example/cat.png';
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      max_tokens: 300,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe(fixtureBody('openai-image').choices[0].message.content);
    const sent = harness.upstream.requests[0]!.body as any;
    expect(sent.messages[0].content[1]).toEqual({ type: 'image_url', image_url: { url } });
  });

  it('maps the model name with the channel mapping and keeps vendor fields', async () => {
    await openai.chat.completions.create({ model: 'gpt-mapped', messages: hello, top_k: 5 } as never);
    const sent = harness.upstream.requests[0]!.body as any;
    expect(sent.model).toBe('gpt-4o-mini-upstream-name');
    expect(sent.top_k).toBe(5);
  });
});

describe('errors on /v1/chat/completions, in the OpenAI shape', () => {
  async function raw(body: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any, headers: response.headers };
  }

  it.each([
    [{ model: 'gpt-4o-mini', messages: hello, temperature: 2.5 }, 'temperature', /at most 2/],
    [{ model: 'gpt-4o-mini', messages: [] }, 'messages', /at least 1/],
    [{ messages: hello }, 'model', /required/],
    [{ model: 'gpt-4o-mini', messages: hello, presence_penalty: -3 }, 'presence_penalty', /at least -2/],
    // A role the gateway does not know is an OpenAI channel's to judge; a converted channel reads roles, and refuses it.
    [{ model: 'claude-sonnet-4-5', messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role', /one of/],
  ])('400 for %j naming %s', async (body, param, rule) => {
    const response = await raw(body);
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(response.body.error.param).toBe(param);
    expect(response.body.error.message).toMatch(rule);
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it('400 for 129 tools, through the SDK', async () => {
    const tools = Array.from({ length: 129 }, (_, index) => ({
      type: 'function' as const,
      function: { name: `tool_${index}` },
    }));
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello, tools })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('tools');
    expect(error.message).toMatch(/at most 128/);
  });

  it('400 for malformed JSON, 415 for a non-JSON content type', async () => {
    const malformed = await raw('{"model": "gpt-4o-mini", ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_json');
    const form = await raw('model=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body.error.message).toMatch(/application\/json/);
  });

  it('401 for a missing or unknown key', async () => {
    const missing = await fetch(`${harness.baseUrl}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).error.code).toBe('invalid_api_key');
    const stranger = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: `sk-${'x'.repeat(48)}`, maxRetries: 0 });
    const error = await stranger.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('404 for a model no channel serves', async () => {
    const error = await openai.chat.completions
      .create({ model: 'no-such-model', messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect(error.message).toContain('no-such-model');
  });

  it("names the gateway's request id on a reply, a stream and an error, where the SDK reads it", async () => {
    const reply = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello }).withResponse();
    const stream = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello, stream: true })
      .withResponse();
    for await (const _chunk of stream.data);
    const error = await openai.chat.completions
      .create({ model: 'no-such-model', messages: hello })
      .catch((caught) => caught);
    const ids = [reply.request_id, stream.request_id, error.requestID];
    for (const id of ids) expect(id).toMatch(/^[\w.:-]{8,128}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it.each([
    ['error-429', 429, OpenAI.RateLimitError],
    ['error-500', 502, OpenAI.InternalServerError],
    ['error-503', 503, OpenAI.InternalServerError],
    ['error-400', 400, OpenAI.BadRequestError],
  ])('upstream %s becomes %i with the upstream message', async (fixture, status, errorClass) => {
    harness.upstream.next(fixture);
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    const upstreamMessage = (loadJsonFixture(`openai-${fixture}`).body as any).error.message as string;
    expect(error.message).toContain(upstreamMessage.slice(0, 30));
    if (status === 429) expect(error.headers.get('retry-after')).toBe('1');
  });

  it("an upstream 401 is the channel's fault: 502, without the upstream's words", async () => {
    harness.upstream.next('error-401');
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/channel's API key/);
  });

  it('504 when the upstream does not answer in time, 502 when it cannot be reached', async () => {
    const slow = await startHarness({ environment: { UPSTREAM_HEADERS_TIMEOUT_MS: '300' } });
    try {
      const console = new ConsoleClient(slow.baseUrl);
      await console.register('slow@example.com');
      const client = new OpenAI({
        baseURL: `${slow.baseUrl}/v1`,
        apiKey: (await console.createToken('t')).key,
        maxRetries: 0,
      });
      slow.upstream.next({ fixture: 'text', hang: true });
      const timeout = await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: hello })
        .catch((caught) => caught);
      expect(timeout.status).toBe(504);
      await slow.upstream.close();
      const unreachable = await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: hello })
        .catch((caught) => caught);
      expect(unreachable.status).toBe(502);
      expect(unreachable.message).toMatch(/Could not reach the upstream/);
    } finally {
      await slow.runtime.close();
    }
  });

  it('an upstream error mid-stream reaches the client as an in-stream error', async () => {
    harness.upstream.next('midstream-error');
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello, stream: true });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
  });
});
