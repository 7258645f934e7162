/**
 * One-hour cache writes as each upstream kind reports them: Anthropic's `cache_creation` (in a reply
 * and across a stream's `message_start` and `message_delta`), Bedrock's `cacheDetails`; a split that
 * claims more than the writes is refused. Gemini reports no cache writes at all (its cache is
 * created and billed apart, by storage time), so its counts carry none.
 */
import { describe, expect, it } from 'vitest';
import { AnthropicStreamRelay } from './anthropic/stream-relay.ts';
import { tokenCountsFromAnthropic } from './anthropic/usage.ts';
import { tokenCountsFromBedrock } from './bedrock/usage.ts';
import { tokenCountsFromGemini } from './gemini/usage.ts';
import type { UsageRefusalNote } from './usage-check.ts';

const anthropicUsage = {
  input_tokens: 12,
  output_tokens: 30,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 1500,
  cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1000 },
};

describe('Anthropic cache_creation', () => {
  it('keeps the one-hour part of the cache writes', () => {
    expect(tokenCountsFromAnthropic(anthropicUsage)).toEqual({
      promptTokens: 1512,
      completionTokens: 30,
      cachedTokens: 0,
      cacheWriteTokens: 1500,
      cacheWrite1hTokens: 1000,
      reasoningTokens: 0,
    });
  });

  it('has no one-hour part when none or no split is reported', () => {
    const fiveMinutes = { ...anthropicUsage, cache_creation: { ephemeral_5m_input_tokens: 1500 } };
    expect(tokenCountsFromAnthropic(fiveMinutes)).not.toHaveProperty('cacheWrite1hTokens');
    const { cache_creation, ...older } = anthropicUsage;
    expect(tokenCountsFromAnthropic(older)).toMatchObject({ cacheWriteTokens: 1500 });
    expect(tokenCountsFromAnthropic(older)).not.toHaveProperty('cacheWrite1hTokens');
  });

  it('refuses a one-hour part larger than the writes, or one that is not a count', () => {
    const note: UsageRefusalNote = {};
    const larger = { ...anthropicUsage, cache_creation: { ephemeral_1h_input_tokens: 1501 } };
    expect(tokenCountsFromAnthropic(larger, note)).toBeNull();
    expect(note.usageRefused).toContain('ephemeral_1h_input_tokens was more than the cache_creation_input_tokens');
    const text = { ...anthropicUsage, cache_creation: { ephemeral_1h_input_tokens: '9' } };
    expect(tokenCountsFromAnthropic(text, note)).toBeNull();
    expect(note.usageRefused).toContain('usage.cache_creation.ephemeral_1h_input_tokens was a string');
  });

  it('reads the split from a stream, message_start first and message_delta restating it', () => {
    const relay = new AnthropicStreamRelay();
    const { output_tokens, ...start } = anthropicUsage;
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [] };
    relay.onEvent({
      event: 'message_start',
      data: JSON.stringify({ type: 'message_start', message: { ...message, usage: { ...start, output_tokens: 1 } } }),
    });
    relay.onEvent({
      event: 'message_delta',
      data: JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens } }),
    });
    expect(relay.outcome().usage).toMatchObject({ cacheWriteTokens: 1500, cacheWrite1hTokens: 1000 });
  });
});

describe('Bedrock cacheDetails', () => {
  const usage = {
    inputTokens: 10,
    outputTokens: 5,
    cacheReadInputTokens: 0,
    cacheWriteInputTokens: 900,
    cacheDetails: [
      { ttl: '1h', inputTokens: 600 },
      { ttl: '5m', inputTokens: 300 },
    ],
  };

  it('keeps the one-hour part of the cache writes', () => {
    expect(tokenCountsFromBedrock(usage)).toMatchObject({
      promptTokens: 910,
      cacheWriteTokens: 900,
      cacheWrite1hTokens: 600,
    });
    const { cacheDetails, ...older } = usage;
    expect(tokenCountsFromBedrock(older)).not.toHaveProperty('cacheWrite1hTokens');
  });

  it('refuses details that claim more than the writes or are not counts', () => {
    const note: UsageRefusalNote = {};
    expect(tokenCountsFromBedrock({ ...usage, cacheDetails: [{ ttl: '1h', inputTokens: 901 }] }, note)).toBeNull();
    expect(note.usageRefused).toContain('more one-hour writes than cacheWriteInputTokens');
    expect(tokenCountsFromBedrock({ ...usage, cacheDetails: [{ ttl: '1h', inputTokens: -1 }] }, note)).toBeNull();
    expect(note.usageRefused).toContain('cacheDetails[ttl=1h].inputTokens was -1');
    expect(tokenCountsFromBedrock({ ...usage, cacheDetails: 'all' }, note)).toBeNull();
  });
});

describe('Gemini usageMetadata', () => {
  it('reports cache reads only', () => {
    const counts = tokenCountsFromGemini({
      promptTokenCount: 100,
      cachedContentTokenCount: 80,
      candidatesTokenCount: 3,
    });
    expect(counts).toMatchObject({ cachedTokens: 80, cacheWriteTokens: 0 });
    expect(counts).not.toHaveProperty('cacheWrite1hTokens');
  });
});
