/**
 * @module gateway/providers/conversion/reply-text
 * The generated text of a whole reply, for the tokenizer estimate when the upstream reports no usage;
 * the client still gets a usage object, counted the same way the relay counts it.
 */
import { estimateUsage } from '../estimate-usage.ts';
import type { TokenCounts } from '../provider.ts';
import type { Reply } from './reply.ts';

export function replyText(reply: Reply): string {
  return reply.blocks
    .map((block) => {
      if (block.type === 'text' || block.type === 'reasoning') return block.text;
      if (block.type === 'tool-call') return block.name + block.arguments;
      return '';
    })
    .join('');
}

/**
 * The reply named by the model it was asked of, when the upstream names none (Bedrock's Converse
 * replies carry no model): clients read `model` and a blank one looks like a fault.
 */
export function withModel(reply: Reply, askedModel: string): Reply {
  return reply.model ? reply : { ...reply, model: askedModel };
}

export function withUsage(
  reply: Reply,
  clientBody: Record<string, unknown>,
  completionText: string,
): Reply & { usage: TokenCounts } {
  return { ...reply, usage: reply.usage ?? estimateUsage(clientBody, completionText) };
}
