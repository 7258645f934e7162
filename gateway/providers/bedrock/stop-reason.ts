/**
 * @module gateway/providers/bedrock/stop-reason
 * Converse's `stopReason` as the neutral finish reason. A guardrail or content filter that stopped the
 * reply is a content filter; a malformed model output or tool use ends the reply as it is. Unknown
 * values count as a natural stop, as for the other kinds.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
import type { FinishReason } from '../../../contracts/neutral/reply.ts';

const fromBedrock: Record<string, FinishReason> = {
  end_turn: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  stop_sequence: 'stop-sequence',
  guardrail_intervened: 'content-filter',
  content_filtered: 'content-filter',
  model_context_window_exceeded: 'context-exceeded',
  malformed_model_output: 'stop',
  malformed_tool_use: 'stop',
};

export function finishReasonFromBedrock(stopReason: unknown): FinishReason {
  return (
    (typeof stopReason === 'string' && Object.hasOwn(fromBedrock, stopReason) && fromBedrock[stopReason]) || 'stop'
  );
}

/** Bedrock names no id in its reply: the gateway gives each one its own. */
export function bedrockReplyId(): string {
  return `bedrock-${crypto.randomUUID().replaceAll('-', '')}`;
}
