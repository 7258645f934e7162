/**
 * The official `openai` client's Responses calls through the gateway to channels that do not speak
 * the Responses API: an openai channel (converted to chat completions) and an anthropic channel
 * (converted to Messages), whole, streamed, in a two-step function-call loop, with reasoning, and
 * with the errors and usage records a Responses client gets.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { responsesObjectSchema, responsesStreamEventSchema } from '../../contracts/openai/responses-response.ts';
import { type ConversionGateway, startConversionGateway } from '../conversion/support/gateway-clients.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';

let gateway: ConversionGateway;
let published: GatewayEvent[];
const sent = (index = 0) => gateway.harness.upstream.requests[index]!;
const tools: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];
const kinds = [
  { kind: 'openai', model: 'gpt-4o-mini', path: '/v1/chat/completions' },
  { kind: 'anthropic', model: 'claude-sonnet-4-5', path: '/v1/messages' },
] as const;

beforeAll(async () => {
  gateway = await startConversionGateway('responses-converted@example.com');
  const publisher = gateway.harness.runtime.publisher;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = (...events) => {
    // what the projections apply: a request's usage as a usage.recorded of its own
    published.push(...trafficFacts(events));
    publish(...events);
  };
});
afterAll(async () => gateway.harness.stop());
beforeEach(() => {
  gateway.harness.upstream.reset();
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

const textOf = (kind: 'openai' | 'anthropic') => {
  const body = loadJsonFixture(`${kind}-text`).body as any;
  return kind === 'openai' ? body.choices[0].message.content : body.content[0].text;
};

describe.each(kinds)('$kind channel', ({ kind, model, path }) => {
  it('responses.create: converts the request and answers a Responses object, usage recorded as responses', async () => {
    const response = await gateway.openai.responses.create({
      model,
      instructions: 'Be brief.',
      input: 'Say hello',
      max_output_tokens: 256,
    });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe(textOf(kind));
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    expect(response.usage!.input_tokens_details).toEqual({ cached_tokens: expect.any(Number) });
    expect(response.instructions).toBe('Be brief.');
    expect(sent().path).toBe(path);
    if (kind === 'openai') {
      expect(sent().body).toEqual({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
        max_tokens: 256,
      });
    } else {
      expect(sent().body).toMatchObject({
        model,
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
        max_tokens: 256,
      });
    }
    const usage = await eventually(() => published.find((event) => event.type === 'usage.recorded'));
    const completed = published.find((event) => event.type === 'request.completed')!;
    // The usage event belongs to its request, which carries the endpoint.
    expect(usage.body).toMatchObject({
      requestId: (completed.body as any).requestId,
      promptTokens: response.usage!.input_tokens,
      completionTokens: response.usage!.output_tokens,
    });
    expect(completed.body).toMatchObject({ endpoint: 'responses', status: 200 });
  });

  it('responses.stream: output_text.delta events in order, finalResponse() with usage', async () => {
    const stream = gateway.openai.responses.stream({ model, input: 'Say hello' });
    const types: string[] = [];
    let deltas = '';
    stream.on('response.output_text.delta', (event) => {
      deltas += event.delta;
    });
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types).toContain('response.output_text.delta');
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(deltas.length).toBeGreaterThan(0);
    expect(final.output_text).toBe(deltas);
    expect(final.status).toBe('completed');
    expect(final.usage!.output_tokens).toBeGreaterThan(0);
    const usage = await eventually(() => published.find((event) => event.type === 'usage.recorded'));
    const completed = published.find((event) => event.type === 'request.completed')!;
    expect(completed.body).toMatchObject({ endpoint: 'responses', stream: true });
    expect(usage.body).toMatchObject({ completionTokens: final.usage!.output_tokens });
  });

  it('runs a two-step function-call loop, the tool result reaching the upstream', async () => {
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await gateway.openai.responses.create({ model, input, tools });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
      type: 'function_call_output',
      call_id: call.call_id,
      output: '18°C, sunny',
    });
    const second = await gateway.openai.responses.create({ model, input, tools });
    expect(second.output_text.length).toBeGreaterThan(0);
    const upstream = sent(1).body as any;
    if (kind === 'openai') {
      expect(upstream.messages.slice(-2)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: call.arguments } },
          ],
        },
        { role: 'tool', tool_call_id: call.call_id, content: '18°C, sunny' },
      ]);
    } else {
      expect(upstream.messages.at(-2).content.at(-1)).toMatchObject({ type: 'tool_use', id: call.call_id });
      expect(upstream.messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.call_id, content: '18°C, sunny' }],
      });
    }
  });

  it('streams a function call: arguments deltas, .done, and the call in finalResponse()', async () => {
    const stream = gateway.openai.responses.stream({ model, input: 'Weather in Paris?', tools });
    let argumentDeltas = '';
    stream.on('response.function_call_arguments.delta', (event) => {
      argumentDeltas += event.delta;
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call')!;
    expect(types).toContain('response.function_call_arguments.done');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    expect(argumentDeltas).toBe(call.arguments);
  });

  it('drops built-in tools the channel cannot run, saying so in x-gateway-warnings', async () => {
    const { data, response } = await gateway.openai.responses
      .create({
        model,
        input: 'Search the news',
        tools: [{ type: 'web_search' }, { type: 'code_interpreter', container: { type: 'auto' } }],
      })
      .withResponse();
    expect(data.status).toBe('completed');
    expect((sent().body as Record<string, unknown>)['tools']).toBeUndefined();
    expect(response.headers.get('x-gateway-warnings')).toContain('web_search tool dropped');
    expect(response.headers.get('x-gateway-warnings')).toContain('code_interpreter tool dropped');
  });

  it('refuses forcing a built-in tool it cannot run, before any upstream call', async () => {
    const error = await gateway.openai.responses
      .create({
        model,
        input: 'Search the files',
        tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }],
        tool_choice: { type: 'file_search' },
      })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'tool_choice' });
    expect(gateway.harness.upstream.requests).toHaveLength(0);
  });
});

describe('validation and errors', () => {
  it('answers a body the contract refuses with a 400 naming the field', async () => {
    const error = await gateway.openai.responses
      .create({ model: 'gpt-4o-mini', input: 'hi', temperature: 3 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'temperature' });
  });

  it('passes an upstream 429 on in the OpenAI error shape', async () => {
    gateway.harness.upstream.next('error-429');
    gateway.harness.upstream.next('error-429');
    const error = await gateway.openai.responses
      .create({ model: 'claude-sonnet-4-5', input: 'hi' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.error).toMatchObject({ type: 'rate_limit_exceeded' });
  });

  it('ends a stream the upstream breaks off with an error event and response.failed', async () => {
    gateway.harness.upstream.next('midstream-error');
    const response = await gateway.post('/v1/responses', { model: 'claude-sonnet-4-5', input: 'hi', stream: true });
    const text = await response.text();
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    const failed = JSON.parse(text.trim().split('\n').at(-1)!.slice('data: '.length));
    expect(failed.response).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });
    const completed = await eventually(() => published.find((event) => event.type === 'request.completed'));
    expect(completed.body).toMatchObject({ endpoint: 'responses' });
  });
});

describe('reasoning on an anthropic channel', () => {
  it('turns reasoning.effort into thinking, answers a reasoning item with the signature, and sends it back first', async () => {
    gateway.harness.upstream.next('thinking');
    const first = await gateway.openai.responses.create({
      model: 'claude-sonnet-4-5',
      input: 'What is 27 * 453?',
      reasoning: { effort: 'low', summary: 'auto' },
    });
    expect((sent().body as any).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    const thinking = (loadJsonFixture('anthropic-thinking').body as any).content.find(
      (block: any) => block.type === 'thinking',
    );
    const reasoning = first.output.find((item) => item.type === 'reasoning')!;
    expect(reasoning).toMatchObject({
      summary: [{ type: 'summary_text', text: thinking.thinking }],
      encrypted_content: thinking.signature,
    });
    const second = await gateway.openai.responses.create({
      model: 'claude-sonnet-4-5',
      input: [
        { role: 'user', content: 'What is 27 * 453?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { role: 'user', content: 'And times two?' },
      ],
      reasoning: { effort: 'low' },
    });
    expect(second.status).toBe('completed');
    const assistant = (sent(1).body as any).messages[1];
    expect(assistant.role).toBe('assistant');
    expect(assistant.content[0]).toEqual({
      type: 'thinking',
      thinking: thinking.thinking,
      signature: thinking.signature,
    });
  });

  it('streams reasoning as reasoning_summary_text.delta events before the text', async () => {
    gateway.harness.upstream.next('thinking');
    const stream = gateway.openai.responses.stream({
      model: 'claude-sonnet-4-5',
      input: 'What is 27 * 453?',
      reasoning: { effort: 'low' },
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types.indexOf('response.reasoning_summary_text.delta')).toBeGreaterThan(-1);
    expect(types.indexOf('response.reasoning_summary_text.delta')).toBeLessThan(
      types.indexOf('response.output_text.delta'),
    );
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    const reasoning = final.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.encrypted_content).toBe((loadJsonFixture('anthropic-thinking').body as any).content[0].signature);
  });
});

describe('the wire: every converted event matches the Responses contract', () => {
  const cases = [
    { model: 'gpt-4o-mini', fixture: 'text' },
    { model: 'gpt-4o-mini', fixture: 'interleaved-tool-calls' },
    { model: 'gpt-4o-mini', fixture: 'thinking' },
    { model: 'claude-sonnet-4-5', fixture: 'parallel-tool-calls' },
    { model: 'claude-sonnet-4-5', fixture: 'thinking' },
  ];
  it.each(cases)(
    '$model, $fixture: events in order, sequence numbers 0, 1, 2…, items opened before used',
    async ({ model, fixture }) => {
      gateway.harness.upstream.next(fixture);
      const response = await gateway.post('/v1/responses', { model, input: 'Go', tools, stream: true });
      const text = await response.text();
      const events = [...text.matchAll(/^event: (.+)\ndata: (.+)$/gm)].map((match) => ({
        name: match[1],
        data: JSON.parse(match[2]!),
      }));
      const added = new Set<number>();
      const done = new Set<number>();
      events.forEach(({ name, data }, index) => {
        expect(responsesStreamEventSchema.parse(data).type).toBe(name);
        expect(data.sequence_number).toBe(index);
        if (name === 'response.output_item.added') added.add(data.output_index);
        if (name === 'response.output_item.done') done.add(data.output_index);
        if ('output_index' in data && name !== 'response.output_item.added') {
          expect(added.has(data.output_index)).toBe(true);
          if (name !== 'response.output_item.done') expect(done.has(data.output_index)).toBe(false);
        }
      });
      expect(events[0]!.name).toBe('response.created');
      const last = events.at(-1)!;
      expect(last.name).toBe('response.completed');
      expect([...done].sort()).toEqual([...added].sort());
      const final = responsesObjectSchema.parse(last.data.response);
      expect(final.usage).not.toBeNull();
      if (fixture.includes('tool-calls')) {
        expect(final.output.filter((item) => item.type === 'function_call')).toHaveLength(2);
        for (const item of final.output) if (item.type === 'function_call') JSON.parse(item.arguments);
      }
    },
  );
});
