/**
 * @module gateway/providers/anthropic
 * The `anthropic` channel kind: Anthropic's Messages API.
 */
import type { AnthropicMessageResponse } from '../../../contracts/anthropic/messages-response.ts';
import { anthropicThinkingToContentRelay, thinkingToContentMessage } from '../conversion/same-format-thinking.ts';
import type { Provider, ResponseReading } from '../provider.ts';
import { buildAnthropicRequest } from './request.ts';
import { AnthropicStreamRelay } from './stream-relay.ts';
import { tokenCountsFromAnthropic } from './usage.ts';

export const anthropicProvider: Provider = {
  buildRequest: buildAnthropicRequest,
  readResponse(body, input) {
    const message = body as Partial<AnthropicMessageResponse>;
    const completionText = (message.content ?? [])
      .map((block) => {
        const loose = block as { text?: string; thinking?: string; name?: string; input?: unknown };
        return loose.text ?? loose.thinking ?? (loose.name ? loose.name + JSON.stringify(loose.input ?? {}) : '');
      })
      .join('');
    const reading: ResponseReading = {
      usage: null,
      model: message.model ?? null,
      completionText,
      // The upstream's bytes go through untouched unless the channel folds thinking into the text.
      ...(input.route.channel.thinkingToContent && { clientBody: thinkingToContentMessage(body) }),
    };
    reading.usage = tokenCountsFromAnthropic(message.usage, reading);
    return reading;
  },
  createStreamRelay: ({ input }) =>
    input.route.channel.thinkingToContent
      ? anthropicThinkingToContentRelay(input.body, input.route.channel)
      : new AnthropicStreamRelay(input.route.channel),
};
