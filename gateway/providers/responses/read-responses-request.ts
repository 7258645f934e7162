/**
 * @module gateway/providers/responses/read-responses-request
 * The Responses API's request reader: a `POST /v1/responses` body as the neutral request. Reasoning
 * items become thinking parts (their `encrypted_content` is the Anthropic signature the gateway gave
 * out), function calls and their outputs become tool-call and tool-result parts. What a converted
 * channel cannot do is refused with a 400 that names it (built-in tools, their items, stored state);
 * what it can do without is dropped and named in the returned warnings.
 */
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../../contracts/neutral/request.ts';
import type {
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesRequest,
} from '../../../contracts/openai/responses-request.ts';
import { GatewayError } from '../../errors.ts';
import type { ReadRequest } from '../read-request.ts';
import { isExpanded } from './continuation.ts';

const refused = (message: string, param: string) => new GatewayError('invalid_request', message, { param });

function contentParts(content: string | ResponsesInputContent[], warnings: string[]): NeutralPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.flatMap((part): NeutralPart[] => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return [{ type: 'text', text: part.text }];
      case 'refusal':
        return [{ type: 'text', text: part.refusal }];
      case 'input_image':
        if (part.image_url) {
          const detail = part.detail === 'original' ? 'high' : part.detail;
          return [{ type: 'image', url: part.image_url, ...(detail && { detail }) }];
        }
        warnings.push('input_image with a file_id dropped: the channel cannot read uploaded files');
        return [];
      case 'input_file':
        if (part.file_data || part.file_id) {
          return [
            {
              type: 'file',
              ...(part.file_data && { data: part.file_data }),
              ...(part.file_id && { fileId: part.file_id }),
              ...(part.filename && { filename: part.filename }),
            },
          ];
        }
        warnings.push('input_file with a file_url dropped: the channel cannot fetch files');
        return [];
      default:
        return [];
    }
  });
}

function textOf(content: string | ResponsesInputContent[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('');
}

/** Appends parts to the last turn when it has the same role: consecutive items form one turn. */
function push(turns: NeutralTurn[], role: NeutralTurn['role'], parts: NeutralPart[]): void {
  const last = turns.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else turns.push({ role, parts });
}

function readItem(
  item: ResponsesInputItem,
  index: number,
  request: { system: string[]; turns: NeutralTurn[] },
  warnings: string[],
) {
  const type = item.type ?? 'message';
  if (type === 'message' && 'role' in item) {
    const message = item as Extract<ResponsesInputItem, { role: unknown }>;
    if (message.role === 'system' || message.role === 'developer') request.system.push(textOf(message.content));
    else push(request.turns, message.role, contentParts(message.content, warnings));
    return;
  }
  if (type === 'function_call' && 'call_id' in item && 'arguments' in item) {
    const call = item as Extract<ResponsesInputItem, { type: 'function_call' }>;
    push(request.turns, 'assistant', [
      { type: 'tool-call', id: call.call_id, name: call.name, arguments: call.arguments },
    ]);
    return;
  }
  if (type === 'function_call_output' && 'output' in item) {
    const result = item as Extract<ResponsesInputItem, { type: 'function_call_output' }>;
    push(request.turns, 'user', [{ type: 'tool-result', callId: result.call_id, output: textOf(result.output) }]);
    return;
  }
  if (type === 'reasoning' && 'summary' in item) {
    const reasoning = item as Extract<ResponsesInputItem, { type: 'reasoning' }>;
    const text = (reasoning.content?.length ? reasoning.content : reasoning.summary).map((part) => part.text).join('');
    const signature = reasoning.encrypted_content ?? '';
    const part: NeutralPart =
      text === '' && signature !== ''
        ? { type: 'redacted-thinking', data: signature }
        : { type: 'thinking', text, signature };
    push(request.turns, 'assistant', [part]);
    return;
  }
  throw refused(
    `Input items of type ${type} are not available for this model: its channel runs no built-in tools and keeps no items to refer to. Send messages, function_call, function_call_output and reasoning items only.`,
    `input[${index}]`,
  );
}

function readTools(body: ResponsesRequest): NeutralRequest['tools'] {
  const tools = body.tools ?? [];
  const builtIn = [...new Set(tools.filter((tool) => tool.type !== 'function').map((tool) => tool.type))];
  if (builtIn.length > 0) {
    throw refused(
      `Built-in tools are not available for this model: its channel cannot run ${builtIn.join(', ')}. Send function tools only.`,
      'tools',
    );
  }
  return tools.map((tool) => {
    const fn = tool as Extract<(typeof tools)[number], { name: string }>;
    return {
      name: fn.name,
      ...(fn.description && { description: fn.description }),
      ...(fn.parameters && { parameters: fn.parameters }),
      ...(typeof fn.strict === 'boolean' && { strict: fn.strict }),
    };
  });
}

function readToolChoice(choice: ResponsesRequest['tool_choice']): NeutralRequest['toolChoice'] {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice['name'] === 'string') return { name: choice['name'] };
  throw refused(
    `tool_choice of type ${choice.type} is not available for this model: force a function tool by name, or send auto, none or required.`,
    'tool_choice',
  );
}

function readResponseFormat(body: ResponsesRequest): NeutralRequest['responseFormat'] {
  const format = body.text?.format;
  if (!format) return undefined;
  if (format.type === 'json_schema') {
    return {
      type: 'json-schema',
      name: format.name,
      schema: format.schema,
      ...(format.description && { description: format.description }),
      ...(typeof format.strict === 'boolean' && { strict: format.strict }),
    };
  }
  return format.type === 'json_object' ? { type: 'json-object' } : { type: 'text' };
}

export function readResponsesRequest(body: ResponsesRequest): ReadRequest {
  // The relay expands a stored conversation into input before this reads it (continuation.ts).
  if (body.previous_response_id && !isExpanded(body)) {
    throw refused(
      'previous_response_id is not available here: this gateway keeps no responses. Send the earlier turns in input.',
      'previous_response_id',
    );
  }
  const warnings: string[] = [];
  const conversation = { system: body.instructions ? [body.instructions] : [], turns: [] as NeutralTurn[] };
  if (typeof body.input === 'string') {
    conversation.turns.push({ role: 'user', parts: [{ type: 'text', text: body.input }] });
  } else {
    for (const [index, item] of (body.input ?? []).entries()) readItem(item, index, conversation, warnings);
  }
  if (conversation.turns.length === 0) throw refused('input must hold at least one message.', 'input');
  if (body.metadata) warnings.push('metadata dropped: kept in the reply only');
  const effort = body.reasoning?.effort;
  const summary = body.reasoning?.summary;
  const request: NeutralRequest = {
    model: body.model,
    system: conversation.system,
    turns: conversation.turns,
    tools: readTools(body),
    sampling: {
      ...(body.max_output_tokens != null && { maxOutputTokens: body.max_output_tokens }),
      ...(body.temperature != null && { temperature: body.temperature }),
      ...(body.top_p != null && { topP: body.top_p }),
    },
    stream: body.stream === true,
  };
  const toolChoice = readToolChoice(body.tool_choice);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (typeof body.parallel_tool_calls === 'boolean') request.parallelToolCalls = body.parallel_tool_calls;
  if (effort && effort !== 'none') {
    // The neutral scale stops at high; xhigh asks for the most there is.
    request.reasoning = { effort: effort === 'xhigh' ? 'high' : effort, ...(summary && { summary }) };
  }
  const responseFormat = readResponseFormat(body);
  if (responseFormat) request.responseFormat = responseFormat;
  if (body.user) request.user = body.user;
  return { request, warnings };
}
