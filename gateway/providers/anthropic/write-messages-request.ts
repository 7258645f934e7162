/**
 * @module gateway/providers/anthropic/write-messages-request
 * The `anthropic` kind's request writer: a neutral request as a Messages body. It goes through the
 * Chat Completions rendering with thinking kept, then the long-standing Chat Completions → Messages
 * conversion, so every Anthropic rule written there (thinking budgets and signatures, tool id
 * sanitising, the JSON answer tool, empty-text handling) applies unchanged. docs/conversion.md
 * ("Moving onto the neutral core") says how that conversion moves to read the neutral request directly.
 */
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import type { ChatCompletionRequest } from '../../../contracts/openai/chat-request.ts';
import { openAIRequestToAnthropic } from '../conversion/openai-request-to-anthropic.ts';
import { writeChatRequest } from '../openai/write-chat-request.ts';

export interface WrittenMessagesRequest {
  body: Record<string, unknown>;
  warnings: string[];
  /** the intermediate Chat Completions body: the JSON answer tool and the prompt estimate read it */
  chatBody: ChatCompletionRequest;
}

export function writeMessagesRequest(request: NeutralRequest): WrittenMessagesRequest {
  const chatBody = writeChatRequest(request, { keepThinking: true });
  const { body, warnings } = openAIRequestToAnthropic(chatBody as Record<string, unknown>);
  return { body, warnings, chatBody };
}
