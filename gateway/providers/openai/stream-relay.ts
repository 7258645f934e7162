/**
 * @module gateway/providers/openai/stream-relay
 * Same-format relay of an OpenAI stream: each `data:` frame is forwarded as the upstream wrote it
 * (serialised once, by the upstream), while the gateway reads usage, model and errors on the way.
 * The usage-only chunk is dropped when the client did not ask for it (naive clients index
 * `choices[0]` and crash on it). The generated text is counted as it passes, not kept. An error event is the one frame not forwarded as written: it is
 * scrubbed of the channel's keys first (an upstream may echo the request's headers in it).
 */
import type { ChatCompletionChunk } from '../../../contracts/openai/chat-response.ts';
import { channelSecrets, type SecretHolder, scrubJsonText, scrubSecrets } from '../../security/scrub-secrets.ts';
import { CompletionTokenCounter } from '../conversion/completion-token-counter.ts';
import type { SseEvent, StreamOutcome, StreamRelay } from '../provider.ts';
import { tokenCountsFromOpenAI } from './usage.ts';

type LooseChunk = Partial<ChatCompletionChunk> & {
  error?: { message?: unknown; type?: unknown };
  message?: unknown;
};

export class OpenAIStreamRelay implements StreamRelay {
  readonly #hideUsageChunk: boolean;
  readonly #channel: SecretHolder | undefined;
  #outcome: StreamOutcome = { usage: null, model: null, error: null, completionText: '' };
  readonly #completion = new CompletionTokenCounter();
  sawContent = false;

  /** `input`: the request's, for the channel whose keys an error event must not show */
  constructor({ hideUsageChunk, input }: { hideUsageChunk: boolean; input?: { route: { channel: SecretHolder } } }) {
    this.#hideUsageChunk = hideUsageChunk;
    this.#channel = input?.route.channel;
  }

  onEvent({ data }: SseEvent): string {
    if (data === '[DONE]') return 'data: [DONE]\n\n';
    let chunk: LooseChunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      // Not JSON: forward untouched; the client's parser decides.
      return `data: ${data}\n\n`;
    }
    // vLLM and some other servers write their errors as `{"object":"error","message":…}`.
    if (chunk.error || (chunk as { object?: unknown }).object === 'error') return this.#error(chunk, data);
    if (chunk.model) this.#outcome.model = chunk.model;
    const usage = tokenCountsFromOpenAI(chunk.usage, this.#outcome);
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
        this.#completion.add(text + toolText);
      }
    }
    // `chunk.usage`, not `usage`: a usage chunk whose counts were refused is still one the client did not ask for.
    if (chunk.usage && choices.length === 0 && this.#hideUsageChunk) return '';
    return `data: ${data}\n\n`;
  }

  outcome(): StreamOutcome {
    return { ...this.#outcome, completionTokens: this.#completion.tokens };
  }

  #error(chunk: LooseChunk, data: string): string {
    const secrets = channelSecrets(this.#channel);
    const type = chunk.error ? chunk.error.type : (chunk as { type?: unknown }).type;
    const message = chunk.error ? chunk.error.message : chunk.message;
    this.#outcome.error = {
      type: typeof type === 'string' ? type : 'upstream_error',
      message: typeof message === 'string' ? scrubSecrets(message, secrets) : 'Upstream error',
    };
    return `data: ${scrubJsonText(data, secrets)}\n\n`;
  }
}
