import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { estimatePromptTokens } from './estimate-usage.ts';
import { countingBudget, countTokens } from './tokenizer.ts';

const exactCount = (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: (text: string) => number })
  .countTokens;

/** Punctuation in a pseudo-random order (no two texts alike, so the tokenizer's cache does not help). */
function punctuation(length: number, seed: number): string {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    text += '!#$%&*+-/<=>?@^~'[state % 16];
  }
  return text;
}

describe('countTokens', () => {
  it('counts ordinary text exactly, across its windows', () => {
    const text = 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(250);
    expect(text.length).toBeGreaterThan(15_000);
    expect(countTokens(text)).toBe(exactCount(text));
  });

  it('counts a megabyte with no whitespace (letters, punctuation) in well under a second', () => {
    for (const text of ['qwertyuiopasdfgh'.repeat(65_536), punctuation(1 << 20, 7)]) {
      const started = performance.now();
      const tokens = countTokens(text);
      expect(performance.now() - started).toBeLessThan(1_000);
      // A plausible count: between one token per 16 characters and one per character.
      expect(tokens).toBeGreaterThan(text.length / 16);
      expect(tokens).toBeLessThanOrEqual(text.length);
    }
  });

  it('bounds a whole estimate with one budget: a prompt of many long messages costs about one', () => {
    countTokens(punctuation(1_000, 1));
    const messages = Array.from({ length: 40 }, (_, index) => ({ role: 'user', content: punctuation(32_768, index) }));
    const started = performance.now();
    const tokens = estimatePromptTokens({ messages });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(tokens).toBeGreaterThan((40 * 32_768) / 16);
    const budget = countingBudget();
    countTokens(punctuation(20_000, 99), budget);
    expect(budget.characters).toBe(0);
  });
});
