/**
 * What `/v1/chat/completions` answers from an anthropic channel (and from an openai channel with
 * thinking_to_content, which rewrites the reply) checked against OpenAI's published OpenAPI schemas:
 * CreateChatCompletionResponse for whole replies, CreateChatCompletionStreamResponse for every chunk.
 */
import { describe, expect, it } from 'vitest';
import {
  openAIThinkingToContentRelay,
  thinkingToContentCompletion,
} from '../../gateway/providers/conversion/same-format-thinking.ts';
import { providerKinds } from '../../gateway/providers/index.ts';
import type { StreamRelay } from '../../gateway/providers/provider.ts';
import { loadJsonFixture, parseStreamChunks } from '../fake-upstream/fixtures.ts';
import { validateAgainst } from './support/openapi-schema.ts';
import { relayInput } from './support/relay-input.ts';
import { fixtureEvents, parseFrames, runRelay } from './support/sse.ts';

const anthropicForChatCompletions = providerKinds.anthropic.serves['chat.completions']!;

const request = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] };
const jsonRequest = {
  ...request,
  response_format: { type: 'json_schema', json_schema: { name: 'get_weather', schema: { type: 'object' } } },
};
const replies = ['text', 'tool-call', 'parallel-tool-calls', 'tool-result-reply', 'thinking', 'image'];
const streams = ['text', 'tool-call', 'parallel-tool-calls', 'tool-result-reply', 'thinking', 'midstream-error'];

function chunksOf(relay: StreamRelay, fixture: string): unknown[] {
  return parseFrames(runRelay(relay, fixtureEvents(fixture)))
    .filter((frame) => frame.data !== '[DONE]')
    .map((frame) => JSON.parse(frame.data))
    .filter((payload) => !payload.error);
}

describe('the validator', () => {
  it("accepts OpenAI's own recorded replies and chunks", () => {
    // openai-thinking is DeepSeek's reply, which leaves out `refusal`: not OpenAI's own.
    for (const name of ['text', 'tool-call', 'parallel-tool-calls', 'tool-result-reply', 'image']) {
      expect(validateAgainst('CreateChatCompletionResponse', loadJsonFixture(`openai-${name}`).body)).toEqual([]);
      if (name === 'image') continue;
      for (const chunk of parseStreamChunks(`openai-${name}-stream`)) {
        expect(validateAgainst('CreateChatCompletionStreamResponse', chunk)).toEqual([]);
      }
    }
  });

  it('reports a missing required field, a wrong enum value and a wrong type', () => {
    const completion = structuredClone(loadJsonFixture('openai-text').body) as any;
    delete completion.choices[0].finish_reason;
    completion.object = 'chat.completions';
    completion.created = '1760091418';
    expect(validateAgainst('CreateChatCompletionResponse', completion).sort()).toEqual([
      'CreateChatCompletionResponse.choices[0].finish_reason: is required',
      'CreateChatCompletionResponse.created: expected integer, got string',
      'CreateChatCompletionResponse.object: "chat.completions" not in ["chat.completion"]',
    ]);
    const chunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { tool_calls: [{ id: 'x' }] } }],
    };
    expect(validateAgainst('CreateChatCompletionStreamResponse', chunk)).toEqual([
      'CreateChatCompletionStreamResponse.choices[0].finish_reason: is required',
      'CreateChatCompletionStreamResponse.choices[0].delta.tool_calls[0].index: is required',
    ]);
  });
});

describe('CreateChatCompletionResponse', () => {
  for (const name of replies) {
    for (const thinkingToContent of [false, true]) {
      it(`anthropic-${name}${thinkingToContent ? ', thinking_to_content' : ''}`, () => {
        const reading = anthropicForChatCompletions.readResponse(
          loadJsonFixture(`anthropic-${name}`).body,
          relayInput(request, { thinkingToContent }),
        );
        expect(validateAgainst('CreateChatCompletionResponse', reading.clientBody)).toEqual([]);
      });
    }
  }

  it('anthropic-tool-call answering response_format', () => {
    const reading = anthropicForChatCompletions.readResponse(
      loadJsonFixture('anthropic-tool-call').body,
      relayInput(jsonRequest),
    );
    expect(validateAgainst('CreateChatCompletionResponse', reading.clientBody)).toEqual([]);
  });

  it('openai-thinking with thinking_to_content on an openai channel: no violation the upstream did not send', () => {
    const upstream = loadJsonFixture('openai-thinking').body;
    const folded = thinkingToContentCompletion(upstream);
    // DeepSeek leaves out `refusal`; a same-format relay passes the upstream's shape on as it is.
    expect(validateAgainst('CreateChatCompletionResponse', upstream)).toEqual([
      'CreateChatCompletionResponse.choices[0].message.refusal: is required',
    ]);
    expect(validateAgainst('CreateChatCompletionResponse', folded)).toEqual(
      validateAgainst('CreateChatCompletionResponse', upstream),
    );
  });
});

describe('CreateChatCompletionStreamResponse, every chunk', () => {
  for (const name of streams) {
    for (const includeUsage of [false, true]) {
      it(`anthropic-${name}${name === 'midstream-error' ? '' : '-stream'}, include_usage ${includeUsage}`, () => {
        const fixture = name === 'midstream-error' ? 'anthropic-midstream-error' : `anthropic-${name}-stream`;
        for (const thinkingToContent of [false, true]) {
          const relay = anthropicForChatCompletions.createStreamRelay({
            hideUsageChunk: !includeUsage,
            input: relayInput({ ...request, stream: true }, { thinkingToContent }),
          });
          const chunks = chunksOf(relay, fixture);
          expect(chunks.length).toBeGreaterThan(1);
          for (const chunk of chunks) expect(validateAgainst('CreateChatCompletionStreamResponse', chunk)).toEqual([]);
        }
      });
    }
  }

  it('anthropic-tool-call-stream answering response_format', () => {
    const relay = anthropicForChatCompletions.createStreamRelay({
      hideUsageChunk: false,
      input: relayInput({ ...jsonRequest, stream: true }),
    });
    const chunks = chunksOf(relay, 'anthropic-tool-call-stream');
    for (const chunk of chunks) expect(validateAgainst('CreateChatCompletionStreamResponse', chunk)).toEqual([]);
    expect(chunks.map((chunk: any) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('{"city": "Paris"}');
  });

  it('openai-thinking-stream with thinking_to_content on an openai channel', () => {
    const relay = openAIThinkingToContentRelay({ hideUsageChunk: false, clientBody: request, created: 1 });
    for (const chunk of chunksOf(relay, 'openai-thinking-stream')) {
      expect(validateAgainst('CreateChatCompletionStreamResponse', chunk)).toEqual([]);
    }
  });
});
