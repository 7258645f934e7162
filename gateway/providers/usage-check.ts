/**
 * @module gateway/providers/usage-check
 * Which token counts an upstream reports the gateway believes. Usage becomes billing and quotas, and
 * the log replays it for good: one `1e300` or `1.7e308` would make every later sum infinite, a `1.5`
 * would bill half a token, a string or an object would bill nothing. Both usage readers (usage.ts of
 * each channel kind) go through here, so every path (streamed or not, same format or converted) is
 * held to the same rule; a refused usage is counted with the tokenizer instead, and the reason kept.
 */

/** More than any model's context window and output in one request, far below any overflow. */
export const MAX_TOKENS_PER_FIELD = 10_000_000;

/** Where a reader says why it refused an upstream's usage (a reading, a stream outcome, a reader). */
export interface UsageRefusalNote {
  /** why the upstream's usage was not believed; the tokens are then counted by the gateway */
  usageRefused?: string | null;
}

/** A count the gateway believes: a whole number of tokens from 0 to the bound. */
export function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_TOKENS_PER_FIELD;
}

/** Says why (when asked where to) and returns null: the caller then counts the tokens itself. */
export function refuseUsage(note: UsageRefusalNote | undefined, reason: string): null {
  if (note) note.usageRefused = reason;
  return null;
}

/**
 * Why these upstream fields (named as the upstream names them, with their values) are not counts, or
 * null when every one is. Only called once a reader has seen that something is wrong.
 */
export function firstBadCount(fields: Record<string, unknown>): string | null {
  for (const [name, value] of Object.entries(fields)) {
    if (!isTokenCount(value)) {
      return `usage.${name} was ${describe(value)}: a token count must be a whole number from 0 to ${MAX_TOKENS_PER_FIELD}`;
    }
  }
  return null;
}

/** Numbers as they are; anything else by its kind only, since its text is the upstream's to choose. */
function describe(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}
