/**
 * Errors across formats: an upstream error before the first byte reaches the client in the client's
 * shape and status (docs/wire-formats.md §3.7); one after the first byte becomes an in-stream error of the
 * client's format; a client that leaves mid-stream aborts the upstream call and its usage so far is
 * recorded.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { checkAnthropicStream } from './support/anthropic-stream-rules.ts';
import { type ConversionGateway, startConversionGateway } from './support/gateway-clients.ts';
import { checkOpenAIStream } from './support/openai-stream-rules.ts';
import { readFrames } from './support/read-frames.ts';

let gateway: ConversionGateway;
let published: GatewayEvent[];
const chat = { model: 'claude-sonnet-4-5', messages: [{ role: 'user' as const, content: 'Tell me a story' }] };
const messages = {
  model: 'gpt-4o-mini',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Tell me a story' }],
};

beforeAll(async () => {
  gateway = await startConversionGateway('errors@example.com');
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

const upstreamMessage = (name: string) => {
  const body = loadJsonFixture(name).body as any;
  return String(body.error.message).slice(0, 30);
};

describe('an Anthropic upstream error, to an OpenAI client', () => {
  it.each([
    ['error-400', 400, OpenAI.BadRequestError, 'invalid_request_error'],
    ['error-429', 429, OpenAI.RateLimitError, 'rate_limit_exceeded'],
    ['error-500', 502, OpenAI.InternalServerError, 'upstream_error'],
    ['error-529', 503, OpenAI.InternalServerError, 'service_unavailable_error'],
  ])('%s becomes %i in the OpenAI shape', async (fixture, status, errorClass, type) => {
    gateway.harness.upstream.next(fixture);
    const error = await gateway.openai.chat.completions.create(chat).catch((caught) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    expect(error.type).toBe(type);
    expect(error.message).toContain(upstreamMessage(`anthropic-${fixture}`));
    expect(Object.keys(error.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    if (fixture === 'error-429') expect(error.headers.get('retry-after')).toBe('1');
  });

  it("a refused channel key is the gateway operator's problem: 502, the upstream message withheld", async () => {
    gateway.harness.upstream.next('error-401');
    const error = await gateway.openai.chat.completions.create(chat).catch((caught) => caught);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/refused this channel's credentials/);
    expect(error.message).not.toContain('x-api-key');
  });
});

describe('an OpenAI upstream error, to an Anthropic client', () => {
  it.each([
    ['error-400', 400, Anthropic.BadRequestError, 'invalid_request_error'],
    ['error-429', 429, Anthropic.RateLimitError, 'rate_limit_error'],
    ['error-500', 502, Anthropic.InternalServerError, 'api_error'],
    ['error-503', 503, Anthropic.InternalServerError, 'overloaded_error'],
  ])('%s becomes %i in the Anthropic shape', async (fixture, status, errorClass, type) => {
    gateway.harness.upstream.next(fixture);
    const error = await gateway.anthropic.messages.create(messages).catch((caught) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    expect(error.error).toMatchObject({ type: 'error', error: { type } });
    expect(error.error.error.message).toContain(upstreamMessage(`openai-${fixture}`));
  });
});

describe('errors after the first byte', () => {
  it('an Anthropic error event reaches the openai SDK as an APIError, after the text so far', async () => {
    gateway.harness.upstream.next('midstream-error');
    const seen: string[] = [];
    const stream = gateway.openai.chat.completions.stream(chat);
    stream.on('content', (delta) => seen.push(delta));
    const error = await stream.finalChatCompletion().catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.message).toMatch(/Overloaded/);
    expect(seen.join('')).toBe('Once upon a time');
  });

  it('on the wire: a data: error frame in the OpenAI shape, no [DONE] after it', async () => {
    gateway.harness.upstream.next('midstream-error');
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true });
    const { violations, completion } = checkOpenAIStream(await readFrames(response), { includeUsage: false });
    expect(violations).toEqual([]);
    expect(completion.error).toEqual({
      message: 'Overloaded',
      type: 'service_unavailable_error',
      param: null,
      code: null,
    });
  });

  it('an OpenAI error chunk reaches the Anthropic SDK as an APIError with an error event type', async () => {
    gateway.harness.upstream.next('midstream-error');
    const error = await gateway.anthropic.messages
      .stream(messages)
      .finalMessage()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('on the wire: event: error in the Anthropic shape, after a well-formed start', async () => {
    gateway.harness.upstream.next('midstream-error');
    const response = await gateway.post('/v1/messages', { ...messages, stream: true });
    const { violations, result } = checkAnthropicStream(await readFrames(response));
    expect(violations).toEqual([]);
    expect(result.content).toEqual([{ type: 'text', text: 'Once upon a time' }]);
    expect(result.error?.type).toBe('api_error');
  });

  it.each([
    ['/v1/chat/completions', { ...chat, stream: true }],
    ['/v1/messages', { ...messages, stream: true }],
  ])('an upstream connection cut mid-stream on %s ends with an error in the client format', async (path, body) => {
    gateway.harness.upstream.next({ fixture: 'text', cutAfterChunks: 4 });
    const frames = await readFrames(await gateway.post(path, body));
    const last = frames.at(-1)!;
    if (path === '/v1/messages') {
      expect(last.event).toBe('error');
      expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    } else {
      expect(last.event).toBeUndefined();
      expect(Object.keys(JSON.parse(last.data).error).sort()).toEqual(['code', 'message', 'param', 'type']);
    }
    const completed = await waitFor(() => published.find((event) => event.type === 'request.completed'));
    expect(bodyOf(completed)).toMatchObject({ status: 200, errorType: 'upstream_stream_interrupted' });
  });
});

describe('a client that leaves mid-stream', () => {
  it.each([
    ['/v1/chat/completions (anthropic upstream)', 'chat'],
    ['/v1/messages (openai upstream)', 'messages'],
  ])('%s: the upstream call is aborted and the usage so far recorded, marked estimated', async (_name, which) => {
    // 300 ms between upstream chunks: after the first text, the rest of the reply takes 1.5 s more.
    gateway.harness.upstream.next({ fixture: 'text', chunkDelayMs: 300 });
    const abort = new AbortController();
    let done: Promise<unknown>;
    await new Promise<void>((resolve) => {
      if (which === 'chat') {
        const stream = gateway.openai.chat.completions.stream(chat, { signal: abort.signal });
        stream.on('content', () => resolve());
        done = stream.done();
      } else {
        const stream = gateway.anthropic.messages.stream(messages, { signal: abort.signal });
        stream.on('text', () => resolve());
        done = stream.done();
      }
    });
    const abortedAt = Date.now();
    abort.abort();
    await done!.catch(() => undefined);
    const usage = await waitFor(() => published.find((event) => event.type === 'usage.recorded'));
    // Recorded long before the upstream would have finished: the gateway stopped reading it.
    expect(Date.now() - abortedAt).toBeLessThan(600);
    const completed = published.find((event) => event.type === 'request.completed')!;
    expect(bodyOf(completed)).toMatchObject({ clientAborted: true, status: 499 });
    expect(bodyOf(usage)).toMatchObject({ source: 'estimated' });
    expect(bodyOf(usage).completionTokens).toBeGreaterThan(0);
    // From the upstream's message_start when there is one, else counted with the tokenizer.
    if (which === 'chat') expect(bodyOf(usage).promptTokens).toBe(16);
    else expect(bodyOf(usage).promptTokens).toBeGreaterThan(0);
  });
});

function bodyOf(event: GatewayEvent): Record<string, any> {
  return event.body as Record<string, any>;
}

async function waitFor<T>(find: () => T | undefined, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
