/**
 * @module gateway/providers/conversion/write-anthropic-message
 * A neutral reply as an Anthropic `Message` (docs/wire-formats.md §3.4b): blocks in their order, no empty text
 * blocks, tool ids made valid for Anthropic, and `stop_reason: tool_use` whenever a tool was called
 * (pitfall 6). Thinking from an OpenAI-format upstream has no signature; it is sent with `""`.
 */
import type { TokenCounts } from '../provider.ts';
import { sanitizeToolId } from './anthropic-tool-id.ts';
import { anthropicStopReason } from './map-stop-reason.ts';
import { anthropicUsage } from './map-usage.ts';
import type { Reply, ReplyBlock } from './reply.ts';
import { parseToolArguments } from './tool-arguments.ts';

export function anthropicMessageId(upstreamId: string): string {
  return upstreamId.startsWith('msg_') ? upstreamId : `msg_${upstreamId}`;
}

type ContentBlock = { type: string; [field: string]: unknown };

function contentBlock(block: ReplyBlock): ContentBlock[] {
  switch (block.type) {
    case 'text':
      return block.text ? [{ type: 'text', text: block.text }] : [];
    case 'reasoning':
      return [{ type: 'thinking', thinking: block.text, signature: block.signature }];
    case 'redacted-reasoning':
      return [{ type: 'redacted_thinking', data: block.data }];
    case 'tool-call':
      return [
        {
          type: 'tool_use',
          id: sanitizeToolId(block.id),
          name: block.name,
          input: parseToolArguments(block.arguments) ?? {},
        },
      ];
  }
}

export function writeAnthropicMessage(reply: Reply & { usage: TokenCounts }) {
  const content = reply.blocks.flatMap(contentBlock);
  const calledTools = content.some((block) => block.type === 'tool_use');
  return {
    id: anthropicMessageId(reply.id),
    type: 'message' as const,
    role: 'assistant' as const,
    model: reply.model,
    content,
    stop_reason: anthropicStopReason(reply.finishReason, calledTools),
    stop_sequence: reply.stopSequence,
    usage: anthropicUsage(reply.usage),
  };
}
