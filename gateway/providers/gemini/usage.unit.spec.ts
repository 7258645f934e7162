import { describe, expect, it } from 'vitest';
import type { UsageRefusalNote } from '../usage-check.ts';
import { tokenCountsFromGemini } from './usage.ts';

describe('Gemini usageMetadata', () => {
  it('prompt includes cached and tool-use tokens, completion includes thoughts', () => {
    expect(
      tokenCountsFromGemini({
        promptTokenCount: 100,
        cachedContentTokenCount: 40,
        toolUsePromptTokenCount: 5,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 30,
        totalTokenCount: 155,
      }),
    ).toEqual({ promptTokens: 105, completionTokens: 50, cachedTokens: 40, cacheWriteTokens: 0, reasoningTokens: 30 });
  });

  it('an absent count is Google’s omitted zero', () => {
    expect(tokenCountsFromGemini({ promptTokenCount: 7 })).toEqual({
      promptTokens: 7,
      completionTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
  });

  it.each([
    [{ candidatesTokenCount: 3 }, 'usageMetadata had no promptTokenCount'],
    [{ promptTokenCount: 1e300 }, 'usageMetadata.promptTokenCount was 1e+300'],
    [{ promptTokenCount: 3, thoughtsTokenCount: 1.5 }, 'usageMetadata.thoughtsTokenCount was 1.5'],
    [{ promptTokenCount: 3, candidatesTokenCount: '9' }, 'usageMetadata.candidatesTokenCount was a string'],
    [{ promptTokenCount: 3, cachedContentTokenCount: -1 }, 'usageMetadata.cachedContentTokenCount was -1'],
    [{ promptTokenCount: 3, cachedContentTokenCount: 4 }, 'more than the prompt'],
    [[1, 2], 'usageMetadata was not an object'],
  ])('refuses hostile usage %j', (usage, reason) => {
    const note: UsageRefusalNote = {};
    expect(tokenCountsFromGemini(usage as never, note)).toBeNull();
    expect(note.usageRefused).toContain(reason);
  });
});
