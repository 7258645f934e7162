/**
 * @module gateway/providers/conversion/converting-stream-relay
 * The StreamRelay of every converted stream: each upstream SSE event goes through the reader, the
 * filters and the writer, and the frames it yields are written at once; nothing waits for the rest of
 * the reply. On the way it keeps the request's accounting: the upstream's usage when it reports one,
 * else prompt tokens from the upstream's start event or the tokenizer, and completion tokens counted
 * as they stream. A counted usage is sent to the client too (marked estimated in the usage event).
 * An upstream's error is scrubbed of the channel's keys before it is written or recorded.
 */

import { channelSecrets, type SecretHolder, scrubSecrets } from '../../security/scrub-secrets.ts';
import { estimatePromptTokens } from '../estimate-usage.ts';
import type { SseEvent, TokenCounts } from '../provider.ts';
import type {
  CountedStreamOutcome,
  FailingStreamRelay,
  FinishingStreamRelay,
  StreamFailure,
} from '../provider-extensions.ts';
import { CompletionTokenCounter } from './completion-token-counter.ts';
import { anthropicVocabulary } from './map-error-type.ts';
import type { ReplyPart, ReplyPartFilter } from './reply.ts';

export interface ConvertingStreamRelayOptions {
  /** `usageRefused`: why the reader did not believe the upstream's usage, when it did not */
  reader: { read(event: SseEvent): ReplyPart[]; readonly usageRefused?: string | null };
  filters: ReplyPartFilter[];
  /** `fail`: the writer's end for the gateway's own error, where its format needs the stream's state */
  writer: { write(part: ReplyPart): string; fail?(code: string, message: string): string };
  /** the client's request, for the prompt estimate when the upstream reports no usage */
  clientBody: Record<string, unknown>;
  /** the channel whose keys an upstream's error must not show */
  channel?: SecretHolder | undefined;
  /** the model asked of the upstream, named in the reply when the upstream's stream names none */
  askedModel?: string | undefined;
}

export class ConvertingStreamRelay implements FinishingStreamRelay, FailingStreamRelay {
  readonly #options: ConvertingStreamRelayOptions;
  readonly #counter = new CompletionTokenCounter();
  #model: string | null = null;
  #error: CountedStreamOutcome['error'] = null;
  #startUsage: TokenCounts | null = null;
  #usage: TokenCounts | null = null;
  #finished = false;
  #ended = false;
  sawContent = false;

  constructor(options: ConvertingStreamRelayOptions) {
    this.#options = options;
  }

  onEvent(event: SseEvent): string {
    return this.#emit(this.#options.reader.read(event));
  }

  finish(): string {
    if (this.#ended) return '';
    // A stream that stopped before its finish reason was cut short, whatever the transport said.
    if (!this.#finished) {
      const message = 'The upstream provider ended the stream before the reply was complete.';
      return this.#emit([{ type: 'error', errorType: 'api_error', message }]);
    }
    return this.#emit([{ type: 'end' }]);
  }

  fail({ code, message }: StreamFailure): string {
    const { writer } = this.#options;
    if (this.#ended || !writer.fail) return '';
    this.#ended = true;
    this.#error = { type: code, message };
    return writer.fail(code, message);
  }

  outcome(): CountedStreamOutcome {
    return {
      usage: this.#usage ?? this.#estimate(),
      usageEstimated: this.#usage === null,
      usageRefused: this.#options.reader.usageRefused ?? null,
      model: this.#model,
      error: this.#error,
      completionText: '',
    };
  }

  #emit(parts: ReplyPart[]): string {
    let frames = '';
    for (let part of parts) {
      if (this.#ended) break;
      if (part.type === 'error') part = this.#scrubbed(part);
      if (part.type === 'start' && !part.model && this.#options.askedModel) {
        part = { ...part, model: this.#options.askedModel };
      }
      if (part.type === 'end' && !this.#usage) {
        frames += this.#write({ type: 'usage', usage: this.#estimate(), estimated: true });
      }
      this.#account(part);
      frames += this.#write(part);
    }
    return frames;
  }

  /** The error as the client may see it: its text a string without the channel's keys. */
  #scrubbed(part: Extract<ReplyPart, { type: 'error' }>): ReplyPart {
    // The readers take both from the upstream's JSON, where either may be any value.
    const message: unknown = part.message;
    const errorType: unknown = part.errorType;
    return {
      type: 'error',
      errorType: typeof errorType === 'string' ? anthropicVocabulary(errorType) : 'api_error',
      message:
        typeof message === 'string'
          ? scrubSecrets(message, channelSecrets(this.#options.channel))
          : 'The upstream provider reported an error.',
    };
  }

  #write(part: ReplyPart): string {
    let parts = [part];
    for (const filter of this.#options.filters) parts = parts.flatMap((each) => filter.filter(each));
    return parts.map((each) => this.#options.writer.write(each)).join('');
  }

  #account(part: ReplyPart): void {
    switch (part.type) {
      case 'start':
        this.#model = part.model || null;
        this.#startUsage = part.usage;
        break;
      case 'text-delta':
      case 'reasoning-delta':
        this.sawContent = true;
        this.#counter.add(part.text);
        break;
      case 'tool-call-start':
        this.sawContent = true;
        this.#counter.add(part.name);
        break;
      case 'tool-call-delta':
        this.#counter.add(part.arguments);
        break;
      case 'finish':
        this.#finished = true;
        break;
      case 'usage':
        if (!part.estimated) this.#usage = part.usage;
        break;
      case 'end':
        this.#ended = true;
        break;
      case 'error':
        this.#ended = true;
        this.#error = { type: part.errorType, message: part.message };
        break;
    }
  }

  /** What was used so far: exact prompt tokens when the upstream's start event gave them. */
  #estimate(): TokenCounts {
    const completionTokens = this.#counter.tokens;
    if (this.#startUsage) {
      return { ...this.#startUsage, completionTokens: Math.max(completionTokens, this.#startUsage.completionTokens) };
    }
    return {
      promptTokens: estimatePromptTokens(this.#options.clientBody),
      completionTokens,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
  }
}
