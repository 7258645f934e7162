/**
 * @module gateway/providers/openai/write-chat-request
 * The `openai` kind's request writer: a neutral request as a Chat Completions body
 * (docs/wire-formats.md §3.2). Thinking parts are dropped: an OpenAI-format server cannot verify
 * them. Tool results become `tool` messages (text only) before the rest of their turn, which follows
 * as a `user` message with any images a tool returned. Cache breakpoints are dropped silently (OpenAI
 * caches prompts by itself); what is dropped otherwise is named in the warnings.
 */
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../../contracts/neutral/request.ts';
import type { ChatCompletionRequest } from '../../../contracts/openai/chat-request.ts';

type Message = Record<string, unknown>;

/** OpenAI allows at most four stop sequences. */
const MAX_STOP_SEQUENCES = 4;

function userContent(parts: NeutralPart[]): string | Array<Record<string, unknown>> {
  const content = parts.flatMap((part): Array<Record<string, unknown>> => {
    switch (part.type) {
      case 'text':
        return [{ type: 'text', text: part.text }];
      case 'image':
        return [{ type: 'image_url', image_url: { url: part.url, ...(part.detail && { detail: part.detail }) } }];
      case 'file':
        return [
          {
            type: 'file',
            file: {
              ...(part.data && { file_data: part.data }),
              ...(part.fileId && { file_id: part.fileId }),
              ...(part.filename && { filename: part.filename }),
            },
          },
        ];
      default:
        return [];
    }
  });
  // Some OpenAI-compatible servers take no content parts: a text-only turn is sent as a string.
  return content.every((part) => part.type === 'text') ? content.map((part) => part['text']).join('\n') : content;
}

function userMessages(turn: NeutralTurn): Message[] {
  const results: Message[] = [];
  const rest: NeutralPart[] = [];
  for (const part of turn.parts) {
    if (part.type !== 'tool-result') {
      rest.push(part);
      continue;
    }
    results.push({
      role: 'tool',
      tool_call_id: part.callId,
      content: part.isError ? `Error: ${part.output}` : part.output,
    });
    // A tool message holds text only: images a tool returned follow in the user message instead.
    for (const item of part.content ?? []) if (item.type !== 'text') rest.push(item);
  }
  return rest.length > 0 ? [...results, { role: 'user', content: userContent(rest) }] : results;
}

function assistantMessage(turn: NeutralTurn): Message {
  const text = turn.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  const calls = turn.parts.flatMap((part) =>
    part.type === 'tool-call'
      ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }]
      : [],
  );
  return {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 && { tool_calls: calls }),
  };
}

/** A system turn in place, where the client gave it: OpenAI takes system messages anywhere. */
function textOf(turn: NeutralTurn): string {
  return turn.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

function toolChoice(choice: NonNullable<NeutralRequest['toolChoice']>): ChatCompletionRequest['tool_choice'] {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function responseFormat(
  format: NonNullable<NeutralRequest['responseFormat']>,
): ChatCompletionRequest['response_format'] {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json-object') return { type: 'json_object' };
  const { name, schema, description, strict } = format;
  return {
    type: 'json_schema',
    json_schema: { name, schema, ...(description && { description }), ...(strict !== undefined && { strict }) },
  };
}

/** `warnings` receives what was dropped, one short sentence each. */
export function writeChatRequest(request: NeutralRequest, warnings: string[] = []): ChatCompletionRequest {
  const messages: Message[] = request.system.map((text) => ({ role: 'system', content: text }));
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push(...userMessages(turn));
    else if (turn.role === 'system') messages.push({ role: 'system', content: textOf(turn) });
    else messages.push(assistantMessage(turn));
  }
  const body: Record<string, unknown> = { model: request.model, messages };
  const { maxOutputTokens, temperature, topP, stop } = request.sampling;
  const effort = request.reasoning?.effort;
  // Reasoning models refuse max_tokens; other OpenAI-compatible servers may know only max_tokens.
  if (maxOutputTokens !== undefined) body[effort ? 'max_completion_tokens' : 'max_tokens'] = maxOutputTokens;
  if (temperature !== undefined) body['temperature'] = temperature;
  if (topP !== undefined) body['top_p'] = topP;
  if (stop && stop.length > MAX_STOP_SEQUENCES)
    warnings.push('stop sequences after the fourth dropped: OpenAI takes four');
  if (stop?.length) body['stop'] = stop.slice(0, MAX_STOP_SEQUENCES);
  if (request.sampling.topK !== undefined) warnings.push('top_k dropped: no OpenAI equivalent');
  if (request.tools.length > 0) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description && { description: tool.description }),
        ...(tool.parameters && { parameters: tool.parameters }),
        ...(tool.strict !== undefined && { strict: tool.strict }),
      },
    }));
    if (request.toolChoice !== undefined) body['tool_choice'] = toolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body['parallel_tool_calls'] = request.parallelToolCalls;
  }
  // The Chat Completions scale is low, medium, high: minimal asks for the least there is.
  if (effort) body['reasoning_effort'] = effort === 'minimal' ? 'low' : effort;
  if (request.responseFormat) body['response_format'] = responseFormat(request.responseFormat);
  if (request.stream) body['stream'] = true;
  if (request.user) body['user'] = request.user;
  return body as ChatCompletionRequest;
}
