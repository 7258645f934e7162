/**
 * Proves every fixture is a valid wire shape: the official SDKs, pointed straight at the fake, parse each
 * reply (JSON, stream, error, mid-stream error) into what the matching fixture says.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { azureFixtureNames } from './azure-cases.ts';
import { isRecord, listFixtures, loadJsonFixture, parseStreamChunks } from './fixtures.ts';
import { geminiFixtureNames } from './gemini-upstream.ts';
import { type FakeUpstream, startFakeUpstream } from './server.ts';

let upstream: FakeUpstream;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  openai = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'test', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: upstream.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

const openaiRequest = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hello' }] };
const anthropicRequest = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Hello' }],
};
const replyCases = ['text', 'tool-call', 'parallel-tool-calls', 'tool-result-reply', 'thinking'];
const jsonCases = [...replyCases, 'image'];
/** Shapes only OpenAI-format servers send: the argument fragments of two tool calls interleaved. */
const openaiOnlyReplyCases = ['interleaved-tool-calls'];
const openaiErrors = [
  [400, OpenAI.BadRequestError],
  [401, OpenAI.AuthenticationError],
  [429, OpenAI.RateLimitError],
  [500, OpenAI.InternalServerError],
  [503, OpenAI.InternalServerError],
] as const;
const anthropicErrors = [
  [400, Anthropic.BadRequestError],
  [401, Anthropic.AuthenticationError],
  [429, Anthropic.RateLimitError],
  [500, Anthropic.InternalServerError],
  [529, Anthropic.OverloadedError],
] as const;
// Built from the same lists the tests iterate, so a new fixture without a test fails the last check.
const coveredFixtures = new Set<string>([
  'openai-models',
  'openai-midstream-error',
  'anthropic-midstream-error',
  // Read by the SDKs in embeddings-and-counting.int.spec.ts.
  'openai-embeddings',
  'openai-embeddings-no-usage',
  'anthropic-count-tokens',
  // A Claude Code-style tool loop, streamed through the SDK in test/relay/agent-clients.int.spec.ts.
  'anthropic-agent-read-stream',
  'anthropic-agent-edit-stream',
  'anthropic-agent-done-stream',
  // Google's shapes, checked in gemini-fixtures.unit.spec.ts and served by gemini-upstream.ts.
  ...geminiFixtureNames,
  ...(['openai', 'anthropic'] as const).flatMap((provider) => [
    ...jsonCases.map((caseName) => `${provider}-${caseName}`),
    ...replyCases.map((caseName) => `${provider}-${caseName}-stream`),
  ]),
  ...openaiOnlyReplyCases.flatMap((caseName) => [`openai-${caseName}`, `openai-${caseName}-stream`]),
  ...openaiErrors.map(([status]) => `openai-error-${status}`),
  ...anthropicErrors.map(([status]) => `anthropic-error-${status}`),
  'openai-responses-text',
  'openai-responses-text-stream',
  'openai-responses-compaction',
  'openai-responses-compaction-stream',
  'openai-responses-compact',
  'openai-responses-input-tokens',
  // A call of a namespace tool's function, named back to Codex in test/relay/forward-compat.int.spec.ts.
  'openai-namespaced-tool-call',
  'openai-namespaced-tool-call-stream',
  // A call of Codex's custom tool exec, offered as functions__exec: test/relay/codex-custom-tools.int.spec.ts.
  'openai-exec-tool-call',
  'openai-exec-tool-call-stream',
  'anthropic-exec-tool-call',
  'anthropic-exec-tool-call-stream',
  // Parsed by the AzureOpenAI client in azure-fixtures.int.spec.ts.
  ...azureFixtureNames,
]);

const expectedCompletion = (name: string) => loadJsonFixture(name).body as OpenAI.ChatCompletion;
const expectedMessage = (name: string) => loadJsonFixture(name).body as Anthropic.Message;

function toolCallSummary(message: OpenAI.ChatCompletionMessage) {
  return (message.tool_calls ?? []).map((call) =>
    call.type === 'function'
      ? { name: call.function.name, input: JSON.parse(call.function.arguments) as unknown }
      : { type: call.type },
  );
}

function contentSummary(content: Anthropic.ContentBlock[]) {
  return content.map((block) => {
    if (block.type === 'text') return { type: block.type, text: block.text };
    if (block.type === 'thinking') return { type: block.type, thinking: block.thinking, signature: block.signature };
    if (block.type === 'tool_use') return { type: block.type, name: block.name, input: block.input };
    return { type: block.type };
  });
}

/** The payload of the first chunk in a stream fixture that matches. */
function findChunk(
  name: string,
  matches: (chunk: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
  return parseStreamChunks(name).filter(isRecord).find(matches);
}

describe('OpenAI fixtures through the openai SDK', () => {
  it.each([...jsonCases, ...openaiOnlyReplyCases])('chat.completions.create parses openai-%s', async (caseName) => {
    upstream.next(caseName);
    const completion = await openai.chat.completions.create(openaiRequest);
    const expected = expectedCompletion(`openai-${caseName}`);
    expect(completion).toEqual(expected);
    expect(completion.model).not.toBe(openaiRequest.model);
    expect(completion.usage?.total_tokens).toBe(
      (expected.usage?.prompt_tokens ?? 0) + (expected.usage?.completion_tokens ?? 0),
    );
  });

  describe.each([true, false])('chat.completions.stream with include_usage %s', (includeUsage) => {
    it.each([...replyCases, ...openaiOnlyReplyCases])(
      'finalChatCompletion assembles openai-%s-stream',
      async (caseName) => {
        const name = `openai-${caseName}-stream`;
        upstream.next(caseName);
        const stream = openai.chat.completions.stream({
          ...openaiRequest,
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        });
        let reasoning = '';
        stream.on('chunk', (chunk) => {
          const delta = chunk.choices[0]?.delta;
          const fragment = delta ? Reflect.get(delta, 'reasoning_content') : undefined;
          if (typeof fragment === 'string') reasoning += fragment;
        });
        const final = await stream.finalChatCompletion();
        const expected = expectedCompletion(`openai-${caseName}`);
        const [finalChoice, expectedChoice] = [final.choices[0], expected.choices[0]];
        expect(final.model).toBe(expected.model);
        expect(finalChoice?.message.content ?? null).toBe(expectedChoice?.message.content ?? null);
        expect(finalChoice?.finish_reason).toBe(expectedChoice?.finish_reason);
        expect(finalChoice && toolCallSummary(finalChoice.message)).toEqual(
          expectedChoice && toolCallSummary(expectedChoice.message),
        );
        expect(reasoning).toBe(expectedChoice ? (Reflect.get(expectedChoice.message, 'reasoning_content') ?? '') : '');
        const usageChunk = findChunk(name, (chunk) => Array.isArray(chunk.choices) && chunk.choices.length === 0);
        expect(final.usage).toEqual(includeUsage ? usageChunk?.usage : undefined);
      },
    );
  });

  it.each(openaiErrors)('openai-error-%i raises the matching SDK error', async (status, errorClass) => {
    const fixture = loadJsonFixture(`openai-error-${status}`);
    upstream.next(`error-${status}`);
    const error = await openai.chat.completions.create(openaiRequest).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    const apiError = error as InstanceType<typeof errorClass>;
    expect(apiError.status).toBe(status);
    expect(apiError.error).toEqual(isRecord(fixture.body) ? fixture.body.error : undefined);
    expect(apiError.requestID).toBe(fixture.headers['x-request-id']);
    expect(apiError.headers.get('retry-after')).toBe(fixture.headers['retry-after'] ?? null);
  });

  it('openai-midstream-error raises after the first deltas', async () => {
    upstream.next('midstream-error');
    const stream = await openai.chat.completions.create({ ...openaiRequest, stream: true });
    let text = '';
    const consume = async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    };
    const error = await consume().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: undefined, type: 'server_error' });
    expect(text).toBe('Once upon a time');
  });

  it('GET /v1/models lists models', async () => {
    const models = await openai.models.list();
    expect(models.data.map((model) => model.id)).toContain('gpt-4o-mini-2024-07-18');
  });
});

describe('Anthropic fixtures through the @anthropic-ai/sdk', () => {
  it.each(jsonCases)('messages.create parses anthropic-%s', async (caseName) => {
    upstream.next(caseName);
    const message = await anthropic.messages.create(anthropicRequest);
    expect(message).toEqual(expectedMessage(`anthropic-${caseName}`));
    expect(message.model).toBe('claude-sonnet-4-5-20250929');
  });

  it.each(replyCases)('messages.stream finalMessage assembles anthropic-%s-stream', async (caseName) => {
    const name = `anthropic-${caseName}-stream`;
    upstream.next(caseName);
    const stream = anthropic.messages.stream(anthropicRequest);
    let streamedText = '';
    stream.on('text', (text) => {
      streamedText += text;
    });
    const final = await stream.finalMessage();
    const expected = expectedMessage(`anthropic-${caseName}`);
    expect(final.model).toBe(expected.model);
    expect(final.stop_reason).toBe(expected.stop_reason);
    expect(contentSummary(final.content)).toEqual(contentSummary(expected.content));
    expect(streamedText).toBe(expected.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    // message_delta usage is cumulative and overrides message_start, as the SDK applies it.
    const delta = findChunk(name, (chunk) => chunk.type === 'message_delta');
    expect(final.usage).toMatchObject(isRecord(delta?.usage) ? delta.usage : { missing: 'message_delta usage' });
  });

  it.each(anthropicErrors)('anthropic-error-%i raises the matching SDK error', async (status, errorClass) => {
    const fixture = loadJsonFixture(`anthropic-error-${status}`);
    upstream.next(`error-${status}`);
    const error = await anthropic.messages.create(anthropicRequest).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    const apiError = error as InstanceType<typeof errorClass>;
    expect(apiError.status).toBe(status);
    expect(apiError.error).toEqual(fixture.body);
    expect(apiError.requestID).toBe(fixture.headers['request-id']);
    expect(apiError.headers?.get('retry-after') ?? null).toBe(fixture.headers['retry-after'] ?? null);
  });

  it('anthropic-midstream-error raises an overloaded_error after the first deltas', async () => {
    upstream.next('midstream-error');
    const stream = anthropic.messages.stream(anthropicRequest);
    let streamedText = '';
    stream.on('text', (text) => {
      streamedText += text;
    });
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status: undefined, type: 'overloaded_error' });
    expect(streamedText).toBe('Once upon a time');
  });
});

describe('openai responses fixtures', () => {
  it('openai-responses-text parses with responses.create', async () => {
    const expected = loadJsonFixture('openai-responses-text').body as OpenAI.Responses.Response;
    const response = await openai.responses.create({ model: 'gpt-4.1-mini', input: 'Hello' });
    expect(response.output_text).toBe('Hello! How can I help you today?');
    expect(response.usage).toEqual(expected.usage);
    expect(upstream.requests[0]!.path).toBe('/v1/responses');
  });

  it('openai-responses-text-stream parses with responses.stream into the same text', async () => {
    const stream = openai.responses.stream({ model: 'gpt-4.1-mini', input: 'Hello' });
    let streamedText = '';
    stream.on('response.output_text.delta', (event) => {
      streamedText += event.delta;
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Hello! How can I help you today?');
    expect(streamedText).toBe(final.output_text);
    expect(final.usage?.total_tokens).toBe(49);
  });
});

describe('openai responses compaction fixtures', () => {
  const trigger = [{ role: 'user' as const, content: 'Fix the test' }, { type: 'compaction_trigger' as const }];

  it('openai-responses-compaction answers a compaction_trigger with one compaction item', async () => {
    const response = await openai.responses.create({ model: 'gpt-5.1-codex', input: trigger });
    expect(response.output.map((item) => item.type)).toEqual(['compaction']);
    expect(response.usage?.input_tokens).toBe(2051);
  });

  it('openai-responses-compaction-stream carries the item in output_item.done and response.completed', async () => {
    const stream = openai.responses.stream({ model: 'gpt-5.1-codex', input: trigger });
    const done: string[] = [];
    stream.on('response.output_item.done', (event) => done.push(event.item.type));
    const final = await stream.finalResponse();
    expect(done).toEqual(['compaction']);
    expect(final.output.map((item) => item.type)).toEqual(['compaction']);
  });

  it('openai-responses-compact parses with responses.compact', async () => {
    const compacted = await openai.responses.compact({ model: 'gpt-5.1-codex', input: 'Fix the failing test' });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'compaction']);
    expect(compacted.usage.total_tokens).toBe(2262);
    expect(upstream.requests[0]!.path).toBe('/v1/responses/compact');
  });

  it('openai-responses-input-tokens parses with responses.inputTokens.count', async () => {
    const counted = await openai.responses.inputTokens.count({ model: 'gpt-5.1-codex', input: 'Hello' });
    expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: 1187 });
    expect(upstream.requests[0]!.path).toBe('/v1/responses/input_tokens');
  });
});

it('every fixture on disk is checked by this suite', () => {
  expect([...listFixtures()].filter((name) => !coveredFixtures.has(name))).toEqual([]);
});
