/**
 * @module gateway/providers/chat-completions/read-chat-request
 * The Chat Completions request reader: a `POST /v1/chat/completions` body as the neutral request, for
 * a channel of another format. System and developer messages before the conversation become the system
 * prompt, later ones system turns where they were given; tool messages become tool-result parts of a user turn; the
 * `thinking_blocks` a client kept from an earlier reply become signed thinking parts, first in their
 * turn. Fields the neutral request has no place for are dropped and named in the warnings; `n > 1`,
 * which would silently return fewer choices than asked, is refused.
 */
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../../contracts/neutral/request.ts';
import type { AssistantMessage, ChatMessage, ThinkingBlock } from '../../../contracts/openai/chat-message.ts';
import type { ChatCompletionRequest } from '../../../contracts/openai/chat-request.ts';
import { pushTurn, type ReaderOptions, type ReadRequest, refused } from '../read-request.ts';

/**
 * The request fields this reader converts. Any other field the client set (`frequency_penalty`,
 * `presence_penalty`, `logprobs`, `top_logprobs`, `logit_bias`, `seed`, `modalities`, `audio`,
 * `prediction`, `store`, `service_tier`, `web_search_options`, `verbosity`, `metadata`, `functions`,
 * `function_call`, `prompt_cache_key`, `safety_identifier`, fields OpenAI adds later) has no neutral
 * place: it is dropped with a warning.
 */
const READ_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'n',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
  'user',
]);

type Content = Exclude<ChatMessage['content'], null | undefined>;

function textOf(content: Content | null | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => ('text' in part ? part.text : 'refusal' in part ? part.refusal : '')).join('');
}

function userParts(content: Extract<ChatMessage, { role: 'user' }>['content'], warnings: string[], target: string) {
  if (typeof content === 'string') return [{ type: 'text', text: content } satisfies NeutralPart];
  return content.flatMap((part): NeutralPart[] => {
    switch (part.type) {
      case 'text':
        return [{ type: 'text', text: part.text }];
      case 'image_url': {
        const { url, detail } = part.image_url;
        return [{ type: 'image', url, ...(detail && { detail }) }];
      }
      case 'file': {
        const { file_data, file_id, filename } = part.file;
        return [
          {
            type: 'file',
            ...(file_data && { data: file_data }),
            ...(file_id && { fileId: file_id }),
            ...(filename && { filename }),
          },
        ];
      }
      default:
        warnings.push(`${part.type} part dropped: ${target} has no equivalent`);
        return [];
    }
  });
}

/** Blocks of other types (or without their fields) are not thinking the upstream could verify. */
function thinkingParts(blocks: readonly ThinkingBlock[]): NeutralPart[] {
  return blocks.flatMap((block): NeutralPart[] => {
    if (block.type === 'thinking' && block.thinking !== undefined)
      return [{ type: 'thinking', text: block.thinking, signature: block.signature ?? '' }];
    if (block.type === 'redacted_thinking' && block.data !== undefined)
      return [{ type: 'redacted-thinking', data: block.data }];
    return [];
  });
}

function assistantParts(message: AssistantMessage): NeutralPart[] {
  const text = textOf(message.content);
  return [
    ...thinkingParts(message.thinking_blocks ?? []),
    ...(text ? [{ type: 'text', text } satisfies NeutralPart] : []),
    ...(message.tool_calls ?? []).map(
      (call): NeutralPart => ({
        type: 'tool-call',
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }),
    ),
  ];
}

function toolResult(message: Extract<ChatMessage, { role: 'tool' }>): NeutralPart {
  const { content } = message;
  return {
    type: 'tool-result',
    callId: message.tool_call_id,
    output: textOf(content),
    // Text parts stay apart, so `12:00` and `CET` do not run together as `12:00CET`.
    ...(typeof content !== 'string' && {
      content: content.map((part) => ({ type: 'text' as const, text: part.text })),
    }),
  };
}

function readMessages(messages: readonly ChatMessage[], warnings: string[], target: string) {
  const system: string[] = [];
  const turns: NeutralTurn[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        // Before the conversation, the system prompt; within it, a system turn where it was given.
        if (turns.length === 0) system.push(textOf(message.content));
        else pushTurn(turns, 'system', [{ type: 'text', text: textOf(message.content) }]);
        break;
      case 'user':
        pushTurn(turns, 'user', userParts(message.content, warnings, target));
        break;
      case 'assistant':
        pushTurn(turns, 'assistant', assistantParts(message));
        break;
      case 'tool':
        pushTurn(turns, 'user', [toolResult(message)]);
        break;
    }
  }
  return { system, turns };
}

function readToolChoice(choice: ChatCompletionRequest['tool_choice']): NeutralRequest['toolChoice'] {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { name: choice.function.name };
}

function readResponseFormat(format: ChatCompletionRequest['response_format']): NeutralRequest['responseFormat'] {
  if (!format) return undefined;
  if (format.type === 'json_schema') {
    const { name, schema, description, strict } = format.json_schema;
    // A json_schema without a schema asks for any JSON object.
    if (!schema) return { type: 'json-object' };
    return {
      type: 'json-schema',
      name,
      schema,
      ...(description && { description }),
      ...(typeof strict === 'boolean' && { strict }),
    };
  }
  return format.type === 'json_object' ? { type: 'json-object' } : { type: 'text' };
}

function readSampling(body: ChatCompletionRequest): NeutralRequest['sampling'] {
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens;
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  return {
    ...(maxOutputTokens != null && { maxOutputTokens }),
    ...(body.temperature != null && { temperature: body.temperature }),
    ...(body.top_p != null && { topP: body.top_p }),
    ...(stop && { stop }),
  };
}

export function readChatRequest(body: ChatCompletionRequest, { target }: ReaderOptions): ReadRequest {
  if (typeof body.n === 'number' && body.n > 1) {
    throw refused(
      'n greater than 1 is not available for this model: its provider returns one choice per request. Leave n out (or send 1) and repeat the request for more choices.',
      'n',
    );
  }
  const warnings: string[] = [];
  const { system, turns } = readMessages(body.messages, warnings, target);
  const request: NeutralRequest = {
    model: body.model,
    system,
    turns,
    tools: (body.tools ?? []).map(({ function: definition }) => ({
      name: definition.name,
      ...(definition.description && { description: definition.description }),
      ...(definition.parameters && { parameters: definition.parameters }),
      ...(typeof definition.strict === 'boolean' && { strict: definition.strict }),
    })),
    sampling: readSampling(body),
    stream: body.stream === true,
  };
  const toolChoice = readToolChoice(body.tool_choice);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (typeof body.parallel_tool_calls === 'boolean') request.parallelToolCalls = body.parallel_tool_calls;
  if (body.reasoning_effort) request.reasoning = { effort: body.reasoning_effort };
  const responseFormat = readResponseFormat(body.response_format);
  if (responseFormat) request.responseFormat = responseFormat;
  if (body.user) request.user = body.user;
  for (const [field, value] of Object.entries(body)) {
    if (!READ_FIELDS.has(field) && value !== null) warnings.push(`${field} dropped: no ${target} equivalent`);
  }
  return { request, warnings };
}
