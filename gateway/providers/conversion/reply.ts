/**
 * @module gateway/providers/conversion/reply
 * The format-neutral reply that every conversion meets in (its blocks and finish reasons are written
 * down in contracts/neutral/reply.ts). A reader turns one provider's reply (a whole body, or a stream
 * one SSE event at a time) into these shapes, optional filters rewrite them
 * (thinking as `<think>` text, the JSON-response tool as content), and a writer renders them in the
 * client's format. One reader per upstream kind and one writer per client format serve every direction, so every wire rule lives in
 * exactly one place.
 */
import type { FinishReason, ReplyBlock } from '../../../contracts/neutral/reply.ts';
import type { TokenCounts } from '../provider.ts';
import type { UsageRefusalNote } from '../usage-check.ts';

export type { FinishReason, ReplyBlock } from '../../../contracts/neutral/reply.ts';

/** A whole (non-streamed) reply; `usageRefused` says why its upstream's usage was not believed. */
export interface Reply extends UsageRefusalNote {
  id: string;
  model: string;
  blocks: ReplyBlock[];
  finishReason: FinishReason;
  stopSequence: string | null;
  /** null when the upstream reported none */
  usage: TokenCounts | null;
}

/**
 * One step of a streamed reply. Tool calls are numbered 0, 1, 2… in the order they start (`toolIndex`),
 * whatever the upstream numbered them by (docs/wire-formats.md §3.8 pitfall 1).
 */
export type ReplyPart =
  /** `usage` holds what is known at the start (Anthropic reports input tokens there), else null */
  | { type: 'start'; id: string; model: string; usage: TokenCounts | null }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** the signature of the reasoning just streamed (Anthropic's `signature_delta`) */
  | { type: 'reasoning-signature'; signature: string }
  | { type: 'tool-call-start'; toolIndex: number; id: string; name: string }
  | { type: 'tool-call-delta'; toolIndex: number; arguments: string }
  | { type: 'finish'; reason: FinishReason; stopSequence: string | null }
  /** the whole request's usage, cumulative; `estimated` when the gateway counted it itself */
  | { type: 'usage'; usage: TokenCounts; estimated: boolean }
  /** the upstream's own end of stream (`[DONE]`, `message_stop`) */
  | { type: 'end' }
  /** an error the upstream reported after the 200; `errorType` in Anthropic's closed vocabulary */
  | { type: 'error'; errorType: string; message: string };

/** Rewrites parts on their way from the reader to the writer; may split, drop or add parts. */
export interface ReplyPartFilter {
  filter(part: ReplyPart): ReplyPart[];
}
