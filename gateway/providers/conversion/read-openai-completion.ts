/**
 * @module gateway/providers/conversion/read-openai-completion
 * A whole Chat Completion as a neutral reply: the first choice (requests converted from Anthropic never
 * ask for more). Reasoning arrives as `reasoning_content` (DeepSeek) or `reasoning` (vLLM, OpenRouter);
 * both are read. A refusal is kept as text and ends the reply as filtered.
 */
import type { ChatCompletion } from '../../../contracts/openai/chat-response.ts';
import { tokenCountsFromOpenAI } from '../openai/usage.ts';
import { finishReasonFromOpenAI } from './map-stop-reason.ts';
import type { Reply, ReplyBlock } from './reply.ts';

type LooseMessage = {
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }> | null;
};

export function readOpenAICompletion(completion: Partial<ChatCompletion>): Reply {
  const choice = completion.choices?.[0];
  const message = (choice?.message ?? {}) as LooseMessage;
  const blocks: ReplyBlock[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning) blocks.push({ type: 'reasoning', text: reasoning, signature: '' });
  if (message.content) blocks.push({ type: 'text', text: message.content });
  if (message.refusal) blocks.push({ type: 'text', text: message.refusal });
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    blocks.push({
      type: 'tool-call',
      id: call.id || `call_${index}`,
      name: call.function?.name ?? '',
      arguments: call.function?.arguments ?? '',
    });
  }
  const reply: Reply = {
    id: completion.id ?? '',
    model: completion.model ?? '',
    blocks,
    finishReason: message.refusal ? 'content-filter' : finishReasonFromOpenAI(choice?.finish_reason),
    stopSequence: null,
    usage: null,
  };
  reply.usage = tokenCountsFromOpenAI(completion.usage, reply);
  return reply;
}
