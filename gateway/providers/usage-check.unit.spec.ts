import { describe, expect, it } from 'vitest';
import { tokenCountsFromAnthropic } from './anthropic/usage.ts';
import { tokenCountsFromOpenAI } from './openai/usage.ts';
import { MAX_TOKENS_PER_FIELD, type UsageRefusalNote } from './usage-check.ts';

const hostile: Array<[string, unknown]> = [
  ['1e300', 1e300],
  ['1.7e308', 1.7e308],
  ['1.5', 1.5],
  ['-3', -3],
  ['"abc"', 'abc'],
  ['{}', {}],
  ['[]', [5]],
  ['true', true],
  ['one past the bound', MAX_TOKENS_PER_FIELD + 1],
];

function openAI(usage: unknown, note: UsageRefusalNote = {}) {
  return { counts: tokenCountsFromOpenAI(usage as never, note), note };
}

function anthropic(usage: unknown, note: UsageRefusalNote = {}) {
  return { counts: tokenCountsFromAnthropic(usage as never, note), note };
}

describe('OpenAI usage', () => {
  it('takes sound counts as sent, nulls as 0, and no usage as none', () => {
    expect(
      openAI({
        prompt_tokens: 20,
        completion_tokens: 7,
        prompt_tokens_details: { cached_tokens: 5, cache_write_tokens: null },
        completion_tokens_details: { reasoning_tokens: 2 },
      }),
    ).toEqual({
      counts: { promptTokens: 20, completionTokens: 7, cachedTokens: 5, cacheWriteTokens: 0, reasoningTokens: 2 },
      note: {},
    });
    expect(openAI({ prompt_tokens: MAX_TOKENS_PER_FIELD, completion_tokens: 0 }).counts?.promptTokens).toBe(
      MAX_TOKENS_PER_FIELD,
    );
    expect(openAI(null)).toEqual({ counts: null, note: {} });
    expect(openAI(undefined)).toEqual({ counts: null, note: {} });
  });

  it.each(hostile)('refuses %s in any field and says which', (_, value) => {
    for (const usage of [
      { prompt_tokens: value, completion_tokens: 1 },
      { prompt_tokens: 10, completion_tokens: value },
      { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: value } },
      { prompt_tokens: 10, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: value } },
    ]) {
      const { counts, note } = openAI(usage);
      expect(counts, JSON.stringify(usage)).toBeNull();
      expect(note.usageRefused).toMatch(
        /^usage\.[a-z_.]+ was .+: a token count must be a whole number from 0 to 10000000$/,
      );
    }
  });

  it('refuses a usage that is not an object, has no prompt count, or caches more than its prompt', () => {
    expect(openAI('abc').note.usageRefused).toBe('usage was not an object');
    expect(openAI({ completion_tokens: 3 }).note.usageRefused).toBe('usage had no prompt_tokens');
    expect(openAI({ prompt_tokens: null, completion_tokens: 3 }).note.usageRefused).toBe('usage had no prompt_tokens');
    expect(openAI({ prompt_tokens: 3 }).note.usageRefused).toBe('usage had no completion_tokens');
    const huge = openAI({ prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 11 } });
    expect(huge.counts).toBeNull();
    expect(huge.note.usageRefused).toMatch(/more cached tokens \(11 \+ 0\) than prompt tokens \(10\)/);
  });
});

describe('Anthropic usage', () => {
  it('adds the cache parts to the prompt, and takes absent or null cache fields as 0', () => {
    expect(
      anthropic({ input_tokens: 4, output_tokens: 9, cache_read_input_tokens: 100, cache_creation_input_tokens: null })
        .counts,
    ).toEqual({ promptTokens: 104, completionTokens: 9, cachedTokens: 100, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  it.each(hostile)('refuses %s in any field and says which', (_, value) => {
    for (const field of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']) {
      const { counts, note } = anthropic({ input_tokens: 1, output_tokens: 1, [field]: value });
      expect(counts, field).toBeNull();
      expect(note.usageRefused).toContain(`usage.${field} was `);
    }
  });

  it('refuses a usage that is not an object, or lacks input or output tokens', () => {
    expect(anthropic(7).note.usageRefused).toBe('usage was not an object');
    expect(anthropic({ output_tokens: 3 }).note.usageRefused).toBe('usage had no input_tokens');
    expect(anthropic({ input_tokens: null, output_tokens: 3 }).note.usageRefused).toBe('usage had no input_tokens');
    expect(anthropic({ input_tokens: 3 }).note.usageRefused).toBe('usage had no output_tokens');
  });
});
