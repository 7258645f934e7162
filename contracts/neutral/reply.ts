/**
 * @module contracts/neutral/reply
 * The format-neutral whole reply: what every upstream reader produces and every client writer renders
 * (the streamed counterpart, one part at a time, is gateway/providers/conversion/reply.ts).
 */
import { z } from 'zod';
import { tokenCountsSchema } from './usage.ts';

/** Why generation stopped: the union of the formats' vocabularies, so a same-format round trip keeps its value. */
export const finishReasonSchema = z.enum([
  'stop',
  'stop-sequence',
  'length',
  'tool-calls',
  'content-filter',
  'pause',
  'context-exceeded',
]);

export const replyBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  /** `signature` is Anthropic's proof of the thinking text; '' when the upstream gives none */
  z.object({ type: z.literal('reasoning'), text: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted-reasoning'), data: z.string() }),
  /** `arguments` is JSON text, as OpenAI carries it; Anthropic's object input is serialised on reading */
  z.object({ type: z.literal('tool-call'), id: z.string(), name: z.string(), arguments: z.string() }),
]);

export const replySchema = z.object({
  id: z.string(),
  model: z.string(),
  blocks: z.array(replyBlockSchema),
  finishReason: finishReasonSchema,
  stopSequence: z.string().nullable(),
  /** null when the upstream reported none */
  usage: tokenCountsSchema.nullable(),
  /** why the upstream's usage was not believed, when it was not */
  usageRefused: z.string().nullable().optional(),
});

export type FinishReason = z.infer<typeof finishReasonSchema>;
export type ReplyBlock = z.infer<typeof replyBlockSchema>;
export type NeutralReply = z.infer<typeof replySchema>;
