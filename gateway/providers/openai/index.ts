/**
 * @module gateway/providers/openai
 * The `openai` channel kind: any OpenAI-compatible Chat Completions upstream.
 */
import type { ChatCompletion } from '../../../contracts/openai/chat-response.ts';
import { openAIThinkingToContentRelay, thinkingToContentCompletion } from '../conversion/same-format-thinking.ts';
import type { Provider, ResponseReading } from '../provider.ts';
import { buildOpenAIRequest } from './request.ts';
import { OpenAIStreamRelay } from './stream-relay.ts';
import { tokenCountsFromOpenAI } from './usage.ts';

export const openAIProvider: Provider = {
  buildRequest: buildOpenAIRequest,
  readResponse(body, input) {
    const completion = body as Partial<ChatCompletion>;
    const completionText = (completion.choices ?? [])
      .map(
        (choice) =>
          (choice.message?.content ?? '') +
          (choice.message?.tool_calls?.map((call) => call.function.name + call.function.arguments).join('') ?? ''),
      )
      .join('');
    const reading: ResponseReading = {
      usage: null,
      model: completion.model ?? null,
      completionText,
      // The upstream's bytes go through untouched unless the channel folds thinking into the text.
      ...(input.route.channel.thinkingToContent && { clientBody: thinkingToContentCompletion(body) }),
    };
    reading.usage = tokenCountsFromOpenAI(completion.usage, reading);
    return reading;
  },
  createStreamRelay: (options) =>
    options.input.route.channel.thinkingToContent
      ? openAIThinkingToContentRelay({
          hideUsageChunk: options.hideUsageChunk,
          clientBody: options.input.body,
          created: Math.floor(Date.now() / 1000),
          channel: options.input.route.channel,
        })
      : new OpenAIStreamRelay(options),
};
