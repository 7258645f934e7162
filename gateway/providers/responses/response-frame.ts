/**
 * @module gateway/providers/responses/response-frame
 * What every Responses reply repeats of its request (instructions, tools, sampling, …), the usage in
 * Responses' terms, and the ids of a reply and its items, shared by the whole-reply writer and the
 * stream writer so both say the same.
 */
import { randomBytes } from 'node:crypto';
import type { FinishReason } from '../../../contracts/neutral/reply.ts';
import type { TokenCounts } from '../../../contracts/neutral/usage.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import type {
  ResponsesObject,
  ResponsesOutputItem,
  ResponsesUsage,
} from '../../../contracts/openai/responses-response.ts';

export function responsesUsage(counts: TokenCounts): ResponsesUsage {
  return {
    input_tokens: counts.promptTokens,
    input_tokens_details: { cached_tokens: counts.cachedTokens },
    output_tokens: counts.completionTokens,
    output_tokens_details: { reasoning_tokens: counts.reasoningTokens },
    total_tokens: counts.promptTokens + counts.completionTokens,
  };
}

/**
 * A Responses id: `resp_`, the upstream's id in the characters an id may hold, and random digits. The
 * gateway keeps replies by this id, and an upstream may reuse its ids (or be told to): the random
 * part keeps two replies apart.
 */
export function responseId(upstreamId: string): string {
  const cleaned = upstreamId.replace(/^(chatcmpl-|msg_|resp_)/, '').replace(/[^A-Za-z0-9]/g, '');
  return `resp_${cleaned.slice(0, 40)}${randomBytes(12).toString('hex')}`;
}

/** Item ids are the reply's own id with the item's kind and position, unique within and across replies. */
export function itemId(kind: 'msg' | 'fc' | 'ctc' | 'rs', reply: string, outputIndex: number): string {
  return `${kind}_${reply.slice('resp_'.length)}${outputIndex}`;
}

export function statusOf(reason: FinishReason | null): Pick<ResponsesObject, 'status' | 'incomplete_details'> {
  if (reason === 'length' || reason === 'context-exceeded') {
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  }
  if (reason === 'content-filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export interface FrameInput {
  id: string;
  model: string;
  createdAt: number;
  request: ResponsesRequest;
}

/** The reply object with its request's settings; `output`, `status` and `usage` are filled in by the caller. */
export function responseFrame({ id, model, createdAt, request }: FrameInput): ResponsesObject {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    // Kept unless the client said not to (gateway/relay/response-keeper.ts), as OpenAI's default.
    store: request.store !== false,
    temperature: request.temperature ?? null,
    text: { format: (request.text?.format as Record<string, unknown> | undefined) ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
    output_text: '',
  };
}

export function outputText(output: ResponsesOutputItem[]): string {
  return output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}
