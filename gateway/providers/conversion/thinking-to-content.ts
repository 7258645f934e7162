/**
 * @module gateway/providers/conversion/thinking-to-content
 * A channel's `thinking_to_content`: the model's thinking joins the reply text as
 * `<think>\n…\n</think>\n` followed by the answer (new-api's framing), for clients that show only the
 * text. Streamed and whole replies get the same text, and no reasoning field is left beside it.
 */
import type { Reply, ReplyBlock, ReplyPart, ReplyPartFilter } from './reply.ts';

export const THINK_OPEN = '<think>\n';
export const THINK_CLOSE = '\n</think>\n';

export class ThinkingToContent implements ReplyPartFilter {
  #thinking = false;

  filter(part: ReplyPart): ReplyPart[] {
    if (part.type === 'reasoning-delta') {
      if (!part.text) return [];
      const opening = this.#thinking ? '' : THINK_OPEN;
      this.#thinking = true;
      return [{ type: 'text-delta', text: opening + part.text }];
    }
    // Whatever follows the thinking (the answer, a tool call, the end) closes the tag first.
    const follows =
      part.type === 'text-delta' || part.type === 'tool-call-start' || part.type === 'finish' || part.type === 'end';
    if (this.#thinking && follows) {
      this.#thinking = false;
      return [{ type: 'text-delta', text: THINK_CLOSE }, part];
    }
    return [part];
  }
}

export function thinkingToContentReply(reply: Reply): Reply {
  const blocks: ReplyBlock[] = [];
  let thinking: string | null = null;
  const append = (text: string) => {
    const last = blocks.at(-1);
    if (last?.type === 'text') last.text += text;
    else blocks.push({ type: 'text', text });
  };
  const closeThinking = () => {
    if (thinking !== null) append(THINK_OPEN + thinking + THINK_CLOSE);
    thinking = null;
  };
  for (const block of reply.blocks) {
    if (block.type === 'reasoning') {
      if (block.text) thinking = (thinking ?? '') + block.text;
    } else if (block.type === 'redacted-reasoning') {
      // Encrypted thinking has no text to show.
    } else if (block.type === 'text') {
      closeThinking();
      append(block.text);
    } else {
      closeThinking();
      blocks.push(block);
    }
  }
  closeThinking();
  return { ...reply, blocks };
}
