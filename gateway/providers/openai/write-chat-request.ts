/**
 * @module gateway/providers/openai/write-chat-request
 * The `openai` kind's request writer: a neutral request as a Chat Completions body. Thinking parts
 * have no Chat Completions field an OpenAI-format server reads; they are written as `thinking_blocks`
 * (the field this gateway gives OpenAI clients, and the Anthropic conversion reads back) only when
 * `keepThinking` is set, else dropped.
 */
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../../contracts/neutral/request.ts';
import type { ChatCompletionRequest } from '../../../contracts/openai/chat-request.ts';

type Message = Record<string, unknown>;

export interface ChatRequestOptions {
  /** write thinking parts as `thinking_blocks` on assistant messages (for the Anthropic conversion) */
  keepThinking?: boolean;
}

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
  const results = turn.parts.flatMap((part) =>
    part.type === 'tool-result' ? [{ role: 'tool', tool_call_id: part.callId, content: part.output }] : [],
  );
  const rest = turn.parts.filter((part) => part.type !== 'tool-result');
  return rest.length > 0 ? [...results, { role: 'user', content: userContent(rest) }] : results;
}

function assistantMessage(turn: NeutralTurn, options: ChatRequestOptions): Message {
  const text = turn.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const calls = turn.parts.flatMap((part) =>
    part.type === 'tool-call'
      ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }]
      : [],
  );
  const thinking = turn.parts.flatMap((part): Array<Record<string, unknown>> => {
    // Unsigned thinking cannot be verified upstream; Anthropic would refuse the turn.
    if (part.type === 'thinking' && part.signature)
      return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
    if (part.type === 'redacted-thinking') return [{ type: 'redacted_thinking', data: part.data }];
    return [];
  });
  return {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 && { tool_calls: calls }),
    ...(options.keepThinking && thinking.length > 0 && { thinking_blocks: thinking }),
  };
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

export function writeChatRequest(request: NeutralRequest, options: ChatRequestOptions = {}): ChatCompletionRequest {
  const messages: Message[] = request.system.map((text) => ({ role: 'system', content: text }));
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push(...userMessages(turn));
    else messages.push(assistantMessage(turn, options));
  }
  const body: Record<string, unknown> = { model: request.model, messages };
  const { maxOutputTokens, temperature, topP, stop } = request.sampling;
  const effort = request.reasoning?.effort;
  // Reasoning models refuse max_tokens; other OpenAI-compatible servers may know only max_tokens.
  if (maxOutputTokens !== undefined) body[effort ? 'max_completion_tokens' : 'max_tokens'] = maxOutputTokens;
  if (temperature !== undefined) body['temperature'] = temperature;
  if (topP !== undefined) body['top_p'] = topP;
  if (stop?.length) body['stop'] = stop;
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
