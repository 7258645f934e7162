/**
 * @module gateway/providers/conversion/read-anthropic-message
 * A whole Anthropic `Message` as a neutral reply. Block types with no counterpart in the other format
 * (server-tool blocks, citations) are left out.
 */
import type { AnthropicMessageResponse } from '../../../contracts/anthropic/messages-response.ts';
import { tokenCountsFromAnthropic } from '../anthropic/usage.ts';
import { finishReasonFromAnthropic } from './map-stop-reason.ts';
import type { Reply, ReplyBlock } from './reply.ts';

type LooseBlock = { type?: string; text?: string; thinking?: string; signature?: string; data?: string } & {
  id?: string;
  name?: string;
  input?: unknown;
};

function block(content: LooseBlock): ReplyBlock[] {
  switch (content.type) {
    case 'text':
      return [{ type: 'text', text: content.text ?? '' }];
    case 'thinking':
      return [{ type: 'reasoning', text: content.thinking ?? '', signature: content.signature ?? '' }];
    case 'redacted_thinking':
      return [{ type: 'redacted-reasoning', data: content.data ?? '' }];
    case 'tool_use':
      return [
        {
          type: 'tool-call',
          id: content.id ?? '',
          name: content.name ?? '',
          arguments: JSON.stringify(content.input ?? {}),
        },
      ];
    default:
      return [];
  }
}

export function readAnthropicMessage(message: Partial<AnthropicMessageResponse>): Reply {
  const reply: Reply = {
    id: message.id ?? '',
    model: message.model ?? '',
    blocks: ((message.content ?? []) as LooseBlock[]).flatMap(block),
    finishReason: finishReasonFromAnthropic(message.stop_reason),
    stopSequence: message.stop_sequence ?? null,
    usage: null,
  };
  reply.usage = tokenCountsFromAnthropic(message.usage, reply);
  return reply;
}
