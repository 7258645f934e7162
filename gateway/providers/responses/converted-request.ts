/**
 * @module gateway/providers/responses/converted-request
 * A Responses request read once into the neutral request and written for one upstream kind. The
 * relay asks a provider for the upstream request, then for the reply's reader, with the same client
 * body: the conversion is kept per body (weakly, it goes with the request) rather than redone.
 */
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import type { ChatCompletionRequest } from '../../../contracts/openai/chat-request.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import { writeMessagesRequest } from '../anthropic/write-messages-request.ts';
import { writeChatRequest } from '../openai/write-chat-request.ts';
import { readResponsesRequest } from './read-responses-request.ts';

export interface ConvertedResponsesRequest {
  neutral: NeutralRequest;
  /** the upstream body for this kind */
  body: Record<string, unknown>;
  /** the request as Chat Completions: what the prompt estimate and the JSON answer tool read */
  chatBody: ChatCompletionRequest;
  warnings: string[];
}

type Kind = 'openai' | 'anthropic';

const converted: Record<Kind, WeakMap<object, ConvertedResponsesRequest>> = {
  openai: new WeakMap(),
  anthropic: new WeakMap(),
};

function convert(kind: Kind, body: ResponsesRequest): ConvertedResponsesRequest {
  const { request: neutral, warnings } = readResponsesRequest(body);
  if (kind === 'openai') {
    const chatBody = writeChatRequest(neutral);
    return { neutral, body: chatBody as Record<string, unknown>, chatBody, warnings };
  }
  const written = writeMessagesRequest(neutral);
  return { neutral, body: written.body, chatBody: written.chatBody, warnings: [...warnings, ...written.warnings] };
}

/** The client's body (validated by the Responses contract) converted for `kind`, once per body. */
export function convertedFor(kind: Kind, clientBody: Record<string, unknown>): ConvertedResponsesRequest {
  const cache = converted[kind];
  let result = cache.get(clientBody);
  if (!result) {
    result = convert(kind, clientBody as ResponsesRequest);
    cache.set(clientBody, result);
  }
  return result;
}
