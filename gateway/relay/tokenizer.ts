/**
 * @module gateway/relay/tokenizer
 * The BPE tokenizer (o200k_base, gpt-tokenizer), loaded on first use: its tables cost about 60 MB of
 * memory, and most traffic never needs them because upstreams report their own usage.
 */
import { createRequire } from 'node:module';

type CountTokens = (text: string) => number;

let loaded: CountTokens | null = null;

export function countTokens(text: string): number {
  if (!loaded) {
    // Synchronous on purpose: counting happens inside stream callbacks. The package ships a CJS build.
    const require = createRequire(import.meta.url);
    loaded = (require('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
  }
  return loaded(text);
}
