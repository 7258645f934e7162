/**
 * @module gateway/providers/conversion/same-format-thinking
 * `thinking_to_content` on a channel of the client's own format. Whole replies are patched in place,
 * so every other field survives; streams go through the converting relay (reader, the thinking filter,
 * writer of the same format), since a thinking block must become text and later blocks move down.
 */
import type { SecretHolder } from '../../security/scrub-secrets.ts';
import type { StreamRelay } from '../provider.ts';
import { ConvertingStreamRelay } from './converting-stream-relay.ts';
import { AnthropicStreamReader } from './read-anthropic-stream.ts';
import { OpenAIStreamReader } from './read-openai-stream.ts';
import { THINK_CLOSE, THINK_OPEN, ThinkingToContent } from './thinking-to-content.ts';
import { AnthropicStreamWriter } from './write-anthropic-stream.ts';
import { OpenAIStreamWriter } from './write-openai-stream.ts';

type Message = { content?: string | null; reasoning_content?: string | null; reasoning?: string | null };
type Completion = { choices?: Array<{ message?: Message }> };
type Block = { type?: string; text?: string; thinking?: string };

export function thinkingToContentCompletion(body: unknown): unknown {
  const completion = body as Completion;
  const choices = (completion.choices ?? []).map((choice) => {
    const { reasoning_content, reasoning, ...message } = choice.message ?? {};
    const thinking = reasoning_content ?? reasoning;
    if (!thinking) return { ...choice, message };
    return {
      ...choice,
      message: { ...message, content: THINK_OPEN + thinking + THINK_CLOSE + (message.content ?? '') },
    };
  });
  return { ...completion, choices };
}

export function thinkingToContentMessage(body: unknown): unknown {
  const message = body as { content?: Block[] };
  const content: Block[] = [];
  let thinking = '';
  for (const block of message.content ?? []) {
    if (block.type === 'thinking') thinking += block.thinking ?? '';
    else if (block.type === 'redacted_thinking') continue;
    else if (thinking && block.type === 'text') {
      content.push({ ...block, text: THINK_OPEN + thinking + THINK_CLOSE + (block.text ?? '') });
      thinking = '';
    } else {
      if (thinking) content.push({ type: 'text', text: THINK_OPEN + thinking + THINK_CLOSE });
      thinking = '';
      content.push(block);
    }
  }
  if (thinking) content.push({ type: 'text', text: THINK_OPEN + thinking + THINK_CLOSE });
  return { ...message, content };
}

export function openAIThinkingToContentRelay(options: {
  hideUsageChunk: boolean;
  clientBody: Record<string, unknown>;
  created: number;
  channel?: SecretHolder;
}): StreamRelay {
  return new ConvertingStreamRelay({
    reader: new OpenAIStreamReader(),
    filters: [new ThinkingToContent()],
    writer: new OpenAIStreamWriter({ includeUsage: !options.hideUsageChunk, created: options.created }),
    clientBody: options.clientBody,
    channel: options.channel,
  });
}

export function anthropicThinkingToContentRelay(
  clientBody: Record<string, unknown>,
  channel?: SecretHolder,
): StreamRelay {
  return new ConvertingStreamRelay({
    reader: new AnthropicStreamReader(),
    filters: [new ThinkingToContent()],
    writer: new AnthropicStreamWriter(),
    clientBody,
    channel,
  });
}
