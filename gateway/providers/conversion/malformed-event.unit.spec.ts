/**
 * A converting reader that meets an upstream event it cannot parse ends the reply with an error (the
 * client is told, the request is recorded as failed) instead of skipping it; an empty data line is
 * not an event to judge.
 */
import { describe, expect, it } from 'vitest';
import { GeminiStreamReader } from '../gemini/read-stream.ts';
import { AnthropicStreamReader } from './read-anthropic-stream.ts';
import { OpenAIStreamReader } from './read-openai-stream.ts';

describe.each([
  ['OpenAI', () => new OpenAIStreamReader()],
  ['Anthropic', () => new AnthropicStreamReader()],
  ['Gemini', () => new GeminiStreamReader()],
])('the %s stream reader', (_name, reader) => {
  it('answers a frame that is not JSON with an error part', () => {
    for (const data of ['not json at all', '{"id":"chatcmpl-1","choices":[{"delta":{"content":"he']) {
      expect(reader().read({ data })).toEqual([
        { type: 'error', errorType: 'api_error', message: expect.stringContaining('not JSON') },
      ]);
    }
  });

  it('passes over an empty data line', () => {
    expect(reader().read({ data: '' })).toEqual([]);
  });
});
