import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CompletionTokenCounter } from './completion-token-counter.ts';

const exactCount = (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: (text: string) => number })
  .countTokens;

function fed(text: string, pieceLength: number): CompletionTokenCounter {
  const counter = new CompletionTokenCounter();
  for (let start = 0; start < text.length; start += pieceLength) counter.add(text.slice(start, start + pieceLength));
  return counter;
}

describe('CompletionTokenCounter', () => {
  it('counts an ordinary reply exactly, piece by piece', () => {
    const text = 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(200);
    expect(fed(text, 7).tokens).toBe(exactCount(text));
  });

  it('bounds its work for a flooded stream of text that is costly to count (one budget per reply)', () => {
    // 4 MB of punctuation in 1 KB pieces: counting each piece whole took about 4 ms a piece (16 s in all).
    const piece = Array.from({ length: 1024 }, (_, index) => '!#$%&*+-/<=>?@^~'[(index * 7) % 16]).join('');
    const started = performance.now();
    const counter = new CompletionTokenCounter();
    for (let index = 0; index < 4096; index++) counter.add(piece);
    const tokens = counter.tokens;
    expect(counter.exactlyCountedCharacters).toBeLessThanOrEqual(16 * 1024);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(tokens).toBeGreaterThan((4096 * 1024) / 16);
    expect(tokens).toBeLessThanOrEqual(4096 * 1024);
  });

  it('reading the count mid-stream leaves the budget for the rest of the reply', () => {
    const text = 'Plain words, counted exactly while the budget lasts. '.repeat(100);
    const counter = new CompletionTokenCounter();
    counter.add(text);
    const early = counter.tokens;
    expect(counter.tokens).toBe(early);
    counter.add(text);
    expect(counter.tokens).toBe(exactCount(text + text));
  });
});
