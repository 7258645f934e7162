/**
 * @module gateway/providers/gemini/finish-reason
 * Gemini's finish reasons in the neutral vocabulary. Gemini ends a turn that calls functions with
 * STOP, so a reply holding a call is `tool-calls`; the reasons for blocked output (safety, recitation,
 * blocklists, personal data) are `content-filter`; a reason Google adds later is a plain stop.
 */
import type { FinishReason } from '../conversion/reply.ts';

const filtered = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

export function finishReasonFromGemini(reason: string | undefined, calledFunctions: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && filtered.has(reason)) return 'content-filter';
  return calledFunctions ? 'tool-calls' : 'stop';
}
