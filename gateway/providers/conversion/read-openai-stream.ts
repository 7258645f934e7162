/**
 * @module gateway/providers/conversion/read-openai-stream
 * An OpenAI chunk stream as neutral reply parts, one `data:` frame at a time. Within a chunk, the
 * parts come in the order reasoning, text, tool calls, finish, so a chunk that carries content and its
 * finish reason together (fake-streamed servers) loses nothing (pitfall 7). A tool call starts at the
 * first entry with a new `index`; ids and names repeated later (some servers do) are ignored.
 */
import type { ChatCompletionChunk } from '../../../contracts/openai/chat-response.ts';
import { tokenCountsFromOpenAI } from '../openai/usage.ts';
import type { SseEvent } from '../provider.ts';
import { partsOfMalformedEvent } from './malformed-event.ts';
import { anthropicErrorType } from './map-error-type.ts';
import { finishReasonFromOpenAI } from './map-stop-reason.ts';
import type { ReplyPart } from './reply.ts';

type Chunk = Partial<ChatCompletionChunk> & { error?: { message?: string; type?: string; code?: string | null } };
type ToolCallDelta = {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
};

export class OpenAIStreamReader {
  /** why the upstream's usage was not believed, when it was not */
  usageRefused: string | null = null;
  #started = false;
  #refused = false;
  readonly #toolIndexes = new Map<number, number>();

  read({ data }: SseEvent): ReplyPart[] {
    if (data.trim() === '[DONE]') return [{ type: 'end' }];
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      return partsOfMalformedEvent(data);
    }
    if (chunk.error) {
      return [
        {
          type: 'error',
          errorType: anthropicErrorType(chunk.error.type ?? 'server_error', chunk.error.code),
          message: chunk.error.message ?? 'The upstream provider reported an error.',
        },
      ];
    }
    const parts: ReplyPart[] = [];
    if (!this.#started) {
      this.#started = true;
      parts.push({ type: 'start', id: chunk.id ?? '', model: chunk.model ?? '', usage: null });
    }
    // Requests converted from Anthropic ask for one choice; any other choice is not this reply.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (choice) parts.push(...this.#choiceParts(choice, chunk.id ?? ''));
    const usage = tokenCountsFromOpenAI(chunk.usage, this);
    if (usage) parts.push({ type: 'usage', usage, estimated: false });
    return parts;
  }

  #choiceParts(choice: NonNullable<Chunk['choices']>[number], chunkId: string): ReplyPart[] {
    const parts: ReplyPart[] = [];
    const delta = (choice.delta ?? {}) as NonNullable<typeof choice.delta> & { refusal?: string | null };
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
    if (delta.content) parts.push({ type: 'text-delta', text: delta.content });
    if (delta.refusal) {
      this.#refused = true;
      parts.push({ type: 'text-delta', text: delta.refusal });
    }
    for (const [position, call] of ((delta.tool_calls ?? []) as ToolCallDelta[]).entries()) {
      const upstreamIndex = call.index ?? position;
      let toolIndex = this.#toolIndexes.get(upstreamIndex);
      if (toolIndex === undefined) {
        toolIndex = this.#toolIndexes.size;
        this.#toolIndexes.set(upstreamIndex, toolIndex);
        const id = call.id || `call_${chunkId}_${toolIndex}`;
        parts.push({ type: 'tool-call-start', toolIndex, id, name: call.function?.name ?? '' });
      }
      const fragment = call.function?.arguments;
      if (fragment) parts.push({ type: 'tool-call-delta', toolIndex, arguments: fragment });
    }
    if (choice.finish_reason) {
      const reason = this.#refused ? 'content-filter' : finishReasonFromOpenAI(choice.finish_reason);
      parts.push({ type: 'finish', reason, stopSequence: null });
    }
    return parts;
  }
}
