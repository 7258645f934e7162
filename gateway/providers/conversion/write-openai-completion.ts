/**
 * @module gateway/providers/conversion/write-openai-completion
 * A neutral reply as a Chat Completion (docs/wire-formats.md §3.4b): one choice at index 0, text blocks joined
 * into `content`, tool calls in order, thinking as `reasoning_content` (the DeepSeek field most clients
 * read) plus `thinking_blocks` with their signatures, which a client may send back on its next turn so
 * that an Anthropic upstream accepts a thinking tool loop (LiteLLM's convention).
 */
import type { TokenCounts } from '../provider.ts';
import { openAIFinishReason } from './map-stop-reason.ts';
import { openAIUsage } from './map-usage.ts';
import type { Reply } from './reply.ts';

export function openAICompletionId(upstreamId: string): string {
  return upstreamId.startsWith('chatcmpl-') ? upstreamId : `chatcmpl-${upstreamId}`;
}

export function writeOpenAICompletion(reply: Reply & { usage: TokenCounts }, created: number) {
  const text = reply.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const reasoning = reply.blocks.map((block) => (block.type === 'reasoning' ? block.text : '')).join('');
  const thinkingBlocks = reply.blocks.flatMap((block): Array<Record<string, string>> => {
    if (block.type === 'reasoning' && block.signature)
      return [{ type: 'thinking', thinking: block.text, signature: block.signature }];
    if (block.type === 'redacted-reasoning') return [{ type: 'redacted_thinking', data: block.data }];
    return [];
  });
  const toolCalls = reply.blocks.flatMap((block) =>
    block.type === 'tool-call'
      ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: block.arguments } }]
      : [],
  );
  const message = {
    role: 'assistant' as const,
    content: text || (toolCalls.length ? null : ''),
    refusal: null,
    ...(reasoning && { reasoning_content: reasoning }),
    ...(thinkingBlocks.length && { thinking_blocks: thinkingBlocks }),
    ...(toolCalls.length && { tool_calls: toolCalls }),
  };
  return {
    id: openAICompletionId(reply.id),
    object: 'chat.completion' as const,
    created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: openAIFinishReason(reply.finishReason, toolCalls.length > 0),
      },
    ],
    usage: openAIUsage(reply.usage),
  };
}
