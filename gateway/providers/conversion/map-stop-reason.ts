/**
 * @module gateway/providers/conversion/map-stop-reason
 * Anthropic `stop_reason` and OpenAI `finish_reason` to and from the neutral finish reason
 * (docs/wire-formats.md §3.3). Unknown and null values count as a natural stop, as LiteLLM and new-api do.
 * @see https://docs.anthropic.com/en/api/messages#response-stop-reason
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
import type { FinishReason as OpenAIFinishReason } from '../../../contracts/openai/chat-response.ts';
import type { FinishReason } from './reply.ts';

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

const fromAnthropic: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop-sequence',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  pause_turn: 'pause',
  refusal: 'content-filter',
  model_context_window_exceeded: 'context-exceeded',
};

const toAnthropic: Record<FinishReason, AnthropicStopReason> = {
  stop: 'end_turn',
  'stop-sequence': 'stop_sequence',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  pause: 'pause_turn',
  'content-filter': 'refusal',
  'context-exceeded': 'model_context_window_exceeded',
};

const fromOpenAI: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  // The legacy function-calling reason is a tool call too.
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

const toOpenAI: Record<FinishReason, OpenAIFinishReason> = {
  stop: 'stop',
  'stop-sequence': 'stop',
  // A paused server-tool turn has no OpenAI counterpart; the reply so far is complete text.
  pause: 'stop',
  length: 'length',
  'context-exceeded': 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
};

export function finishReasonFromAnthropic(stopReason: string | null | undefined): FinishReason {
  return fromAnthropic[stopReason ?? ''] ?? 'stop';
}

export function finishReasonFromOpenAI(finishReason: string | null | undefined): FinishReason {
  return fromOpenAI[finishReason ?? ''] ?? 'stop';
}

/**
 * A reply that holds a tool call finished because of it, whatever the upstream said (pitfall 6: a
 * tool runner waits for `tool_use`/`tool_calls`); a cut-off reply keeps its `length`.
 */
function withToolCalls(reason: FinishReason, calledTools: boolean): FinishReason {
  return calledTools && (reason === 'stop' || reason === 'stop-sequence') ? 'tool-calls' : reason;
}

export function anthropicStopReason(reason: FinishReason, calledTools: boolean): AnthropicStopReason {
  return toAnthropic[withToolCalls(reason, calledTools)];
}

export function openAIFinishReason(reason: FinishReason, calledTools: boolean): OpenAIFinishReason {
  return toOpenAI[withToolCalls(reason, calledTools)];
}
