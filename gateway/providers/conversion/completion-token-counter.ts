/**
 * @module gateway/providers/conversion/completion-token-counter
 * Counts generated tokens with the BPE tokenizer as the stream goes, without keeping the text: pending
 * text is counted up to its last word boundary once it passes a few hundred characters, and only the
 * unfinished word is kept. The cut is made where a whitespace run starts, which is where the
 * tokenizer's own pre-splitting cuts, so the total matches counting the whole text at once. One
 * counting budget serves the whole reply: past its first 16 K characters the rest is extrapolated, so
 * an upstream flooding a stream (with text that is costly to count) cannot keep the thread busy.
 */
import { countingBudget, countTokens } from '../tokenizer.ts';

const COUNT_AFTER_CHARACTERS = 512;
/** Text with no whitespace at all (base64, long CJK runs) is counted anyway past this length. */
const COUNT_ANYWAY_AFTER_CHARACTERS = 8192;

function lastWordBoundary(text: string): number {
  for (let index = text.length - 1; index > 0; index--) {
    if (/\s/.test(text[index]!) && !/\s/.test(text[index - 1]!)) return index;
  }
  return -1;
}

export class CompletionTokenCounter {
  #pending = '';
  #counted = 0;
  readonly #budget = countingBudget();

  add(text: string): void {
    if (this.#budget.characters === 0) {
      // Past the budget every piece is extrapolated at the rate seen: no text kept, no word boundary sought.
      this.#counted += countTokens(this.#pending + text, this.#budget);
      this.#pending = '';
      return;
    }
    this.#pending += text;
    if (this.#pending.length < COUNT_AFTER_CHARACTERS) return;
    const cut = lastWordBoundary(this.#pending);
    if (cut > 0) {
      this.#counted += countTokens(this.#pending.slice(0, cut), this.#budget);
      this.#pending = this.#pending.slice(cut);
    } else if (this.#pending.length >= COUNT_ANYWAY_AFTER_CHARACTERS) {
      this.#counted += countTokens(this.#pending, this.#budget);
      this.#pending = '';
    }
  }

  /** Characters handed to the tokenizer so far (the rest was extrapolated). */
  get exactlyCountedCharacters(): number {
    return this.#budget.countedCharacters;
  }

  get tokens(): number {
    // A copy: reading the count mid-stream must not spend the budget the rest of the reply needs.
    return this.#counted + (this.#pending ? countTokens(this.#pending, { ...this.#budget }) : 0);
  }
}
