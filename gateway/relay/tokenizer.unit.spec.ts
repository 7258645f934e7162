import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { countTokens } from './tokenizer.ts';

const exactCount = (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: (text: string) => number })
  .countTokens;

describe('countTokens', () => {
  it('counts ordinary text exactly, across its windows', () => {
    const text = 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(400);
    expect(text.length).toBeGreaterThan(20_000);
    expect(countTokens(text)).toBe(exactCount(text));
  });

  it('counts a megabyte with no whitespace (letters, punctuation) in well under a second', () => {
    const letters = 'qwertyuiopasdfgh'.repeat(65_536);
    const punctuation = Array.from({ length: 1 << 20 }, (_, index) => '!#$%&*+-/<=>?@^~'[(index * 7) % 16]).join('');
    for (const text of [letters, punctuation]) {
      const started = performance.now();
      const tokens = countTokens(text);
      expect(performance.now() - started).toBeLessThan(1_000);
      // A plausible count: between one token per 16 characters and one per character.
      expect(tokens).toBeGreaterThan(text.length / 16);
      expect(tokens).toBeLessThanOrEqual(text.length);
    }
  });
});
