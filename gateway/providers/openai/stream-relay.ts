/**
 * @module gateway/providers/openai/stream-relay
 * Same-format relay of an OpenAI stream: each `data:` frame is forwarded as the upstream wrote it
 * (serialised once, by the upstream), while the gateway reads usage, model and errors on the way.
 * The usage-only chunk is dropped when the client did not ask for it (naive clients index
 * `choices[0]` and crash on it).
 */
import type { ChatCompletionChunk } from '../../../contracts/openai/chat-response.ts';
import type { SseEvent, StreamOutcome, StreamRelay } from '../provider.ts';
import { tokenCountsFromOpenAI } from './usage.ts';

export class OpenAIStreamRelay implements StreamRelay {
  readonly #hideUsageChunk: boolean;
  #outcome: StreamOutcome = { usage: null, model: null, error: null, completionText: '' };
  sawContent = false;

  constructor({ hideUsageChunk }: { hideUsageChunk: boolean }) {
    this.#hideUsageChunk = hideUsageChunk;
  }

  onEvent({ data }: SseEvent): string {
    if (data === '[DONE]') return 'data: [DONE]\n\n';
    let chunk: Partial<ChatCompletionChunk> & { error?: { message?: string; type?: string } };
    try {
      chunk = JSON.parse(data);
    } catch {
      // Not JSON: forward untouched; the client's parser decides.
      return `data: ${data}\n\n`;
    }
    if (chunk.error) {
      this.#outcome.error = {
        type: chunk.error.type ?? 'upstream_error',
        message: chunk.error.message ?? 'Upstream error',
      };
      return `data: ${data}\n\n`;
    }
    if (chunk.model) this.#outcome.model = chunk.model;
    const usage = tokenCountsFromOpenAI(chunk.usage);
    if (usage) this.#outcome.usage = usage;
    const choices = chunk.choices ?? [];
    for (const choice of choices) {
      const delta = choice.delta;
      if (!delta) continue;
      const text = (delta.content ?? '') + (delta.reasoning_content ?? delta.reasoning ?? '');
      const toolText =
        delta.tool_calls?.map((call) => (call.function?.name ?? '') + (call.function?.arguments ?? '')).join('') ?? '';
      if (text || toolText) {
        this.sawContent = true;
        this.#outcome.completionText += text + toolText;
      }
    }
    if (usage && choices.length === 0 && this.#hideUsageChunk) return '';
    return `data: ${data}\n\n`;
  }

  outcome(): StreamOutcome {
    return this.#outcome;
  }
}
