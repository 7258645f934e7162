/**
 * The official `openai` client's Responses calls through the gateway to gemini channels: the fake
 * Gemini REST server (recorded-shape fixtures) and aimock's independent Gemini mock. Whole and
 * streamed, a two-step function-call loop, thinking (thought parts as reasoning, signatures handed
 * back on the next turn, thinking_to_content), usage as recorded, Google's errors in OpenAI's shape,
 * what Gemini cannot take refused with a 400, and the console's channel test.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { GEMINI_KEY, type GeminiGateway, startGeminiGateway } from './support/gemini-gateway.ts';

let gateway: GeminiGateway;
let published: GatewayEvent[];
const sent = (index = 0) => gateway.gemini.requests[index]!;
const tools: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  },
];

beforeAll(async () => {
  gateway = await startGeminiGateway('gemini-responses@example.com');
  const publisher = gateway.harness.runtime.publisher;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = (...events) => {
    // what the projections apply: a request's usage as a usage.recorded of its own
    published.push(...trafficFacts(events));
    publish(...events);
  };
});
afterAll(async () => gateway.stop());
beforeEach(() => {
  gateway.gemini.reset();
  gateway.aimock.clearRequests();
  published = [];
});

async function eventually<T>(find: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not published in time');
}

const fixtureBody = (name: string) => loadJsonFixture(name).body as any;

describe('a gemini channel (recorded-shape fake)', () => {
  it('responses.create: generateContent with the key in x-goog-api-key, the answer and usage as Responses', async () => {
    const response = await gateway.openai.responses.create({
      model: 'gemini-2.5-flash',
      instructions: 'Be brief.',
      input: 'Say hello',
      max_output_tokens: 256,
      temperature: 0.3,
    });
    expect(response.output_text).toBe(fixtureBody('gemini-text').candidates[0].content.parts[0].text);
    expect(response.status).toBe('completed');
    const usage = fixtureBody('gemini-text').usageMetadata;
    expect(response.usage).toMatchObject({
      input_tokens: usage.promptTokenCount,
      output_tokens: usage.candidatesTokenCount + usage.thoughtsTokenCount,
      output_tokens_details: { reasoning_tokens: usage.thoughtsTokenCount },
    });
    expect(sent().path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent().query).toBe('');
    expect(sent().headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(sent().headers['authorization']).toBeUndefined();
    expect(sent().body).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }],
      generationConfig: { temperature: 0.3, maxOutputTokens: 256 },
    });
    const recorded = await eventually(() => published.find((event) => event.type === 'usage.recorded'));
    expect(recorded.body).toMatchObject({
      promptTokens: usage.promptTokenCount,
      completionTokens: usage.candidatesTokenCount + usage.thoughtsTokenCount,
    });
  });

  it('streams: streamGenerateContent?alt=sse read into Responses events, the last usage kept', async () => {
    const stream = await gateway.openai.responses.create({
      model: 'gemini-2.5-flash',
      input: 'Say hello',
      stream: true,
    });
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('Hello! How can I help you today?');
    expect(sent().path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(sent().query).toBe('?alt=sse');
    expect(completed!.usage).toMatchObject({
      input_tokens: 33,
      output_tokens: 34,
      input_tokens_details: { cached_tokens: 12 },
    });
    const recorded = await eventually(() => published.find((event) => event.type === 'usage.recorded'));
    expect(recorded.body).toMatchObject({ promptTokens: 33, completionTokens: 34 });
  });

  it.each([false, true])(
    'runs a function-call loop (stream: %s), the signature going back with the call',
    async (stream) => {
      const first = await gateway.openai.responses.create({
        model: 'gemini-2.5-flash',
        input: 'Weather in Paris?',
        tools,
        stream: false,
      });
      const call = first.output.find((item) => item.type === 'function_call')!;
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
      expect(sent().body).toMatchObject({
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                description: 'Current weather',
                parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
              },
            ],
          },
        ],
      });
      const input: OpenAI.Responses.ResponseInput = [
        { role: 'user', content: 'Weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: (call as any).call_id, output: '{"temperature":18}' },
      ];
      const request = { model: 'gemini-2.5-flash', input, tools };
      let answer = '';
      if (stream) {
        for await (const event of await gateway.openai.responses.create({ ...request, stream: true }))
          if (event.type === 'response.output_text.delta') answer += event.delta;
      } else answer = (await gateway.openai.responses.create(request)).output_text;
      expect(answer).toBe('It is 18 °C and sunny in Paris.');
      const signature = fixtureBody('gemini-tool-call').candidates[0].content.parts[0].thoughtSignature;
      expect((sent(1).body as any).contents).toEqual([
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 18 } } }] },
      ]);
    },
  );

  it('reasoning: effort is a thinking budget, thought parts come back as reasoning with their signature', async () => {
    const response = await gateway.openai.responses.create({
      model: 'gemini-2.5-pro',
      input: 'What is 2 + 2?',
      reasoning: { effort: 'high' },
    });
    expect((sent().body as any).generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 4096, includeThoughts: true },
    });
    const reasoning = response.output.find(
      (item) => item.type === 'reasoning',
    ) as OpenAI.Responses.ResponseReasoningItem;
    const parts = fixtureBody('gemini-thinking').candidates[0].content.parts;
    expect(reasoning.summary[0]!.text).toBe(parts[0].text);
    expect(reasoning.encrypted_content).toBe(`gemini-next:${parts[1].thoughtSignature}`);
    expect(response.output_text).toBe('2 + 2 = 4.');
    // The next turn hands the signature back on the part it signed.
    await gateway.openai.responses.create({
      model: 'gemini-2.5-pro',
      input: [
        { role: 'user', content: 'What is 2 + 2?' },
        ...(response.output as OpenAI.Responses.ResponseInputItem[]),
        { role: 'user', content: 'And 3 + 3?' },
      ],
    });
    expect((sent(1).body as any).contents[1]).toEqual({
      role: 'model',
      parts: [{ text: '2 + 2 = 4.', thoughtSignature: parts[1].thoughtSignature }],
    });
  });

  it('streamed reasoning: thoughts as reasoning summary deltas, the signature on the completed item', async () => {
    let summary = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of await gateway.openai.responses.create({
      model: 'gemini-2.5-pro',
      input: 'What is 2 + 2?',
      reasoning: { effort: 'low' },
      stream: true,
    })) {
      if (event.type === 'response.reasoning_summary_text.delta') summary += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(summary).toBe('**Working out the sum**\n\nThe user asks for 2 + 2, which is 4.\n');
    const reasoning = completed!.output.find(
      (item) => item.type === 'reasoning',
    ) as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.encrypted_content).toBe('gemini-next:CrUBAVSoXO7zm3Lf3rH1jLhQ0nDk8vdtHhBwb2eCw6lJ4qDk');
    expect(completed!.output_text).toBe('2 + 2 = 4.');
    expect(completed!.usage).toMatchObject({ output_tokens: 112, output_tokens_details: { reasoning_tokens: 104 } });
  });

  it('thinking_to_content: thoughts reach the client as <think> text, streamed and not', async () => {
    gateway.gemini.next('thinking');
    const whole = await gateway.openai.responses.create({ model: 'gemini-think', input: 'What is 2 + 2?' });
    expect(whole.output_text).toMatch(/^<think>\s*\*\*Working out the sum\*\*[\s\S]*<\/think>\s*2 \+ 2 = 4\.$/);
    expect(sent().path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    gateway.gemini.next('thinking');
    let text = '';
    for await (const event of await gateway.openai.responses.create({
      model: 'gemini-think',
      input: 'What is 2 + 2?',
      stream: true,
    }))
      if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toMatch(/^<think>\s*\*\*Working out the sum\*\*[\s\S]*<\/think>\s*2 \+ 2 = 4\.$/);
  });

  it('structured output is responseSchema in Gemini’s subset', async () => {
    await gateway.openai.responses.create({
      model: 'gemini-2.5-flash',
      input: 'A number',
      text: {
        format: {
          type: 'json_schema',
          name: 'answer',
          schema: {
            type: 'object',
            properties: { n: { type: ['integer', 'null'] } },
            required: ['n'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    });
    expect((sent().body as any).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true } }, required: ['n'] },
    });
  });

  it('a schema keyword Gemini cannot express is a 400 naming it, and the request is still recorded', async () => {
    const refused = await gateway.openai.responses
      .create({
        model: 'gemini-2.5-flash',
        input: 'x',
        tools: [
          {
            type: 'function',
            name: 'tag',
            parameters: {
              type: 'object',
              properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
            },
            strict: false,
          },
        ],
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(
      '`additionalProperties` at properties.labels',
    );
    expect((refused as any).error.param).toBe('tools[0].parameters');
    expect(gateway.gemini.requests).toHaveLength(0);
    const completed = await eventually(() => published.find((event) => event.type === 'request.completed'));
    expect(completed.body).toMatchObject({ endpoint: 'responses', status: 400, errorType: 'invalid_request_error' });
  });

  it.each([
    ['error-429', OpenAI.RateLimitError, /rate limiting/],
    ['error-503', OpenAI.APIError, /overloaded/],
    ['error-key', OpenAI.APIError, /refused this channel's credentials \(HTTP 400\)/],
  ])('Google’s %s reaches the client in OpenAI’s shape', async (fixture, type, said) => {
    gateway.gemini.next(fixture);
    const error = await gateway.openai.responses
      .create({ model: 'gemini-2.5-flash', input: 'x' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(said);
    expect((error as Error).message).not.toContain(GEMINI_KEY);
  });

  it('Google’s bad-key answer is not the client’s fault (not a 400 for its request)', async () => {
    gateway.gemini.next('error-key');
    const error = (await gateway.openai.responses
      .create({ model: 'gemini-2.5-flash', input: 'x' })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).not.toBe(400);
    expect(error.message).not.toMatch(/rejected the request/);
  });

  it('an error after the 200 ends the stream with an error event and response.failed', async () => {
    gateway.gemini.next('midstream-error');
    const response = await fetch(`${gateway.harness.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.openai.apiKey}` },
      body: JSON.stringify({ model: 'gemini-2.5-flash', input: 'x', stream: true }),
    });
    const text = await response.text();
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(types).toContain('response.output_text.delta');
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(text).toMatch(/The model is overloaded/);
  });

  it('the console’s channel test sends one token to generateContent', async () => {
    const channels = await gateway.admin.call('GET', '/api/channels');
    const channel = channels.body.items.find((item: { name: string }) => item.name === 'gemini-fake');
    const tested = await gateway.admin.call('POST', `/api/channels/${channel.id}/test`, {});
    expect(tested.body).toMatchObject({ ok: true, status: 200, model: 'gemini-2.5-flash' });
    expect(sent().path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent().body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
      generationConfig: { maxOutputTokens: 1 },
    });
    gateway.gemini.next('error-key');
    const failed = await gateway.admin.call('POST', `/api/channels/${channel.id}/test`, {});
    expect(failed.body).toMatchObject({ ok: false, status: 400 });
    expect(failed.body.error).toMatch(/credentials/);
  });
});

describe('a gemini channel on aimock (an independent Gemini REST mock)', () => {
  it('answers text, whole and streamed', async () => {
    const whole = await gateway.openai.responses.create({ model: 'aimock-flash', input: 'Say hello' });
    expect(whole.output_text).toBe('Hello from aimock Gemini.');
    expect(whole.usage).toMatchObject({ input_tokens: 11, output_tokens: 5 });
    let text = '';
    for await (const event of await gateway.openai.responses.create({
      model: 'aimock-flash',
      input: 'Say hello',
      stream: true,
    }))
      if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Hello from aimock Gemini.');
    const paths = gateway.aimock.getRequests().map((entry) => entry.path);
    expect(paths).toEqual([
      '/v1beta/models/gemini-2.5-flash:generateContent',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ]);
  });

  it.each([false, true])('runs a function-call loop (stream: %s)', async (stream) => {
    const first = await gateway.openai.responses.create({ model: 'aimock-flash', input: 'Weather in Lyon?', tools });
    const call = first.output.find(
      (item) => item.type === 'function_call',
    ) as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Lyon"}' });
    const request = {
      model: 'aimock-flash',
      tools,
      input: [
        { role: 'user' as const, content: 'Weather in Lyon?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output' as const, call_id: call.call_id, output: '{"temperature":21}' },
      ],
    };
    let answer = '';
    if (stream) {
      for await (const event of await gateway.openai.responses.create({ ...request, stream: true }))
        if (event.type === 'response.output_text.delta') answer += event.delta;
    } else answer = (await gateway.openai.responses.create(request)).output_text;
    expect(answer).toBe('Sunny, 21 degrees in Lyon.');
  });
});
