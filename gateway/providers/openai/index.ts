/**
 * @module gateway/providers/openai
 * The `openai` channel kind: any OpenAI-compatible Chat Completions upstream.
 */
import type { ChatCompletion } from '../../../contracts/openai/chat-response.ts';
import type { Provider } from '../provider.ts';
import { buildOpenAIRequest } from './request.ts';
import { OpenAIStreamRelay } from './stream-relay.ts';
import { tokenCountsFromOpenAI } from './usage.ts';

export const openAIProvider: Provider = {
  buildRequest: buildOpenAIRequest,
  readResponse(body) {
    const completion = body as Partial<ChatCompletion>;
    const completionText = (completion.choices ?? [])
      .map(
        (choice) =>
          (choice.message?.content ?? '') +
          (choice.message?.tool_calls?.map((call) => call.function.name + call.function.arguments).join('') ?? ''),
      )
      .join('');
    return { usage: tokenCountsFromOpenAI(completion.usage), model: completion.model ?? null, completionText };
  },
  createStreamRelay: (options) => new OpenAIStreamRelay(options),
};
