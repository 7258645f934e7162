/**
 * @module gateway/providers/gemini/thought-signature
 * Gemini's `thoughtSignature`s as the neutral reasoning signature a client carries between turns
 * (an Anthropic thinking block's `signature`, a Responses reasoning item's `encrypted_content`). The
 * value goes out unchanged behind a prefix naming what it signs, so that the next request to a Gemini
 * channel puts it back where Google expects it, and a signature of another upstream (Anthropic's,
 * after a failover) is never sent to Google, which would refuse the whole request:
 * - `gemini:<sig>` signs the thought part whose text the carrier holds: it goes back as that part.
 * - `gemini-next:<sig>` signs the part that follows the carrier (a function call, a text); the
 *   carrier's text, if any, is thinking Google did not sign, which Gemini does not read back.
 */

const THOUGHT = 'gemini:';
const NEXT = 'gemini-next:';

/**
 * What Google documents for a function call whose signature is lost (a history from another model,
 * or a client that dropped it): Gemini 3 refuses an unsigned call of the current turn otherwise.
 */
export const SKIPPED_SIGNATURE = 'skip_thought_signature_validator';

export const thoughtSignature = (signature: string) => THOUGHT + signature;
export const nextPartSignature = (signature: string) => NEXT + signature;

export type ReadSignature = { signs: 'thought' | 'next'; signature: string } | null;

/** A neutral signature as Gemini's, and what it signs; null for unsigned or another upstream's. */
export function readSignature(neutral: string): ReadSignature {
  if (neutral.startsWith(NEXT) && neutral.length > NEXT.length)
    return { signs: 'next', signature: neutral.slice(NEXT.length) };
  if (neutral.startsWith(THOUGHT) && neutral.length > THOUGHT.length)
    return { signs: 'thought', signature: neutral.slice(THOUGHT.length) };
  return null;
}
