/**
 * @module gateway/providers/gemini/pass-through
 * Gemini clients on a gemini channel: the body goes upstream as the client wrote it (the model in the
 * URL mapped to the channel's, the channel's key in `x-goog-api-key`; the client's query string,
 * which may hold its own `key=`, never), and the reply's bytes come back untouched. A stream's events
 * are forwarded one by one while the kind's stream reader takes the model, usage, errors and the
 * generated text's tokens from them. An error event is the one forwarded rewritten: scrubbed of the
 * channel's keys.
 */
import type { GeminiGenerateContentResponse } from '../../../contracts/gemini/generate-content-response.ts';
import { channelSecrets, type SecretHolder, scrubJsonText } from '../../security/scrub-secrets.ts';
import { CompletionTokenCounter } from '../conversion/completion-token-counter.ts';
import { replyText } from '../conversion/reply-text.ts';
import type { Provider, ResponseReading, SseEvent, StreamOutcome, StreamRelay } from '../provider.ts';
import { readGeminiReply } from './read-reply.ts';
import { GeminiStreamReader } from './read-stream.ts';
import { buildGeminiRequest } from './request.ts';

class GeminiPassThroughRelay implements StreamRelay {
  readonly #reader = new GeminiStreamReader();
  readonly #counter = new CompletionTokenCounter();
  readonly #channel: SecretHolder;
  #outcome: StreamOutcome = { usage: null, model: null, error: null, completionText: '' };
  sawContent = false;

  constructor(channel: SecretHolder) {
    this.#channel = channel;
  }

  onEvent(event: SseEvent): string {
    let forwarded = event.data;
    for (const part of this.#reader.read(event)) {
      switch (part.type) {
        case 'start':
          this.#outcome.model = part.model || null;
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
        case 'usage':
          this.#outcome.usage = part.usage;
          break;
        case 'error':
          this.#outcome.error = { type: part.errorType, message: part.message };
          forwarded = scrubJsonText(event.data, channelSecrets(this.#channel));
          break;
        default:
          break;
      }
    }
    return `data: ${forwarded}\r\n\r\n`;
  }

  outcome(): StreamOutcome {
    return { ...this.#outcome, usageRefused: this.#reader.usageRefused, completionTokens: this.#counter.tokens };
  }
}

export const geminiPassThrough: Provider = {
  buildRequest: buildGeminiRequest,
  readResponse(body): ResponseReading {
    const reply = readGeminiReply((body ?? {}) as Partial<GeminiGenerateContentResponse>);
    // No clientBody: the upstream's bytes go to the client as they came.
    return {
      usage: reply.usage,
      usageRefused: reply.usageRefused ?? null,
      model: reply.model || null,
      completionText: replyText(reply),
    };
  },
  createStreamRelay: ({ input }) => new GeminiPassThroughRelay(input.route.channel),
};
