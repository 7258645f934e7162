/**
 * @module gateway/providers/anthropic/stream-relay
 * Same-format relay of an Anthropic stream: every event is forwarded with its `event:` line as the
 * upstream sent it, while the gateway reads usage (input from `message_start`, cumulative output
 * from `message_delta`), the model and in-band errors; the generated text is counted as it passes,
 * not kept. An error event is the one frame not forwarded
 * as written: it is scrubbed of the channel's keys first (an upstream may echo the request's headers).
 */
import type { AnthropicUsage } from '../../../contracts/anthropic/messages-response.ts';
import { channelSecrets, type SecretHolder, scrubJsonText, scrubSecrets } from '../../security/scrub-secrets.ts';
import { CompletionTokenCounter } from '../conversion/completion-token-counter.ts';
import type { SseEvent, StreamOutcome, StreamRelay } from '../provider.ts';
import { tokenCountsFromAnthropic } from './usage.ts';

interface LooseEvent {
  type?: string;
  message?: { model?: string; usage?: Partial<AnthropicUsage> };
  usage?: Partial<AnthropicUsage>;
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string };
  content_block?: { type?: string; name?: string };
  error?: { type?: unknown; message?: unknown };
}

export class AnthropicStreamRelay implements StreamRelay {
  readonly #channel: SecretHolder | undefined;
  #usage: Partial<AnthropicUsage> | null = null;
  #outcome: StreamOutcome = { usage: null, model: null, error: null, completionText: '' };
  readonly #completion = new CompletionTokenCounter();
  sawContent = false;

  /** `channel`: whose keys an error event must not show */
  constructor(channel?: SecretHolder) {
    this.#channel = channel;
  }

  onEvent({ event, data }: SseEvent): string {
    let parsed: LooseEvent;
    try {
      parsed = JSON.parse(data);
    } catch {
      // An error event is scrubbed even when it is not JSON (a proxy's plain-text complaint).
      const shown = event === 'error' ? scrubSecrets(data, channelSecrets(this.#channel)) : data;
      return `event: ${event ?? 'message'}\ndata: ${shown}\n\n`;
    }
    const type = parsed.type ?? event;
    switch (type) {
      case 'message_start':
        this.#outcome.model = parsed.message?.model ?? null;
        this.#usage = { ...parsed.message?.usage };
        break;
      case 'content_block_start':
        if (parsed.content_block?.type === 'tool_use') this.#completion.add(parsed.content_block.name ?? '');
        break;
      case 'content_block_delta': {
        const delta = parsed.delta;
        const text = delta?.text ?? delta?.thinking ?? delta?.partial_json ?? '';
        if (text) {
          this.sawContent = true;
          this.#completion.add(text);
        }
        break;
      }
      case 'message_delta':
        // message_delta usage is cumulative and may restate input and cache counts.
        this.#usage = { ...this.#usage, ...withoutNulls(parsed.usage) };
        break;
      case 'error': {
        const secrets = channelSecrets(this.#channel);
        const { type: errorType, message } = parsed.error ?? {};
        this.#outcome.error = {
          type: typeof errorType === 'string' ? errorType : 'api_error',
          message: typeof message === 'string' ? scrubSecrets(message, secrets) : 'Upstream error',
        };
        return `event: ${event ?? type}\ndata: ${scrubJsonText(data, secrets)}\n\n`;
      }
    }
    return `event: ${event ?? type}\ndata: ${data}\n\n`;
  }

  outcome(): StreamOutcome {
    const outcome: StreamOutcome = { ...this.#outcome, usage: null, completionTokens: this.#completion.tokens };
    if (this.#usage) outcome.usage = tokenCountsFromAnthropic(this.#usage, outcome);
    return outcome;
  }
}

function withoutNulls(usage: Partial<AnthropicUsage> | undefined): Partial<AnthropicUsage> {
  if (!usage) return {};
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined));
}
