/**
 * @module gateway/providers/tokenizer
 * The BPE tokenizer (o200k_base, gpt-tokenizer), loaded on first use: its tables cost tens of MB of
 * memory, and most traffic never needs them because upstreams report their own usage.
 *
 * Counting runs on the main thread, so its cost is bounded whatever the text. BPE time grows with
 * the square (or worse) of a pre-token's length, and a run of letters or punctuation with no
 * whitespace is one pre-token: 64 KB of such text takes seconds, and a stream of it (an upstream that
 * sends no usage, a client that leaves mid-stream) froze the process for hours. So the text is
 * counted in windows of at most 256 characters, cut at a space where there is one (a cut there is a
 * token boundary anyway, so ordinary text counts exactly), and at most 16 K characters are counted
 * per budget (one estimate: a whole prompt, or a reply); the rest is extrapolated at the same rate.
 * See docs/reliability.md; figures in docs/performance.md, "Small choices on the hot path".
 */
import { createRequire } from 'node:module';

type CountTokens = (text: string) => number;

let loaded: CountTokens | null = null;

/** Longest piece handed to the tokenizer at once. */
const WINDOW = 256;
/** Characters counted exactly per budget; the rest is extrapolated from them. */
const SAMPLE = 16 * 1024;

/**
 * How many characters may still be counted exactly, and the rate seen so far. One budget shared by
 * the counts of one estimate (every message of a prompt) bounds the whole estimate, not each text.
 */
export interface CountingBudget {
  characters: number;
  countedCharacters: number;
  countedTokens: number;
}

export function countingBudget(): CountingBudget {
  return { characters: SAMPLE, countedCharacters: 0, countedTokens: 0 };
}

function tokenizer(): CountTokens {
  if (!loaded) {
    // Synchronous on purpose: counting happens inside stream callbacks. The package ships a CJS build.
    const require = createRequire(import.meta.url);
    loaded = (require('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
  }
  return loaded;
}

/** Counts `text[0, end)` window by window. */
function countWindows(text: string, end: number): number {
  const count = tokenizer();
  if (end === text.length && end <= WINDOW) return count(text);
  let tokens = 0;
  for (let start = 0; start < end; ) {
    let cut = Math.min(start + WINDOW, end);
    if (cut < end) {
      const space = text.lastIndexOf(' ', cut);
      // No space in the window's second half: cut the run where it is.
      if (space > start + WINDOW / 2) cut = space;
    }
    tokens += count(text.slice(start, cut));
    start = cut;
  }
  return tokens;
}

export function countTokens(text: string, budget: CountingBudget = countingBudget()): number {
  const end = Math.min(text.length, budget.characters);
  let tokens = end > 0 ? countWindows(text, end) : 0;
  budget.characters -= end;
  budget.countedCharacters += end;
  budget.countedTokens += tokens;
  if (end < text.length) {
    // The rate of what was counted; a budget spent before any text, the usual 4 characters a token.
    const rate = budget.countedCharacters > 0 ? budget.countedTokens / budget.countedCharacters : 0.25;
    tokens += Math.ceil((text.length - end) * rate);
  }
  return tokens;
}
