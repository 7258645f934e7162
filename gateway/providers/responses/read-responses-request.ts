/**
 * @module gateway/providers/responses/read-responses-request
 * The Responses API's request reader: a `POST /v1/responses` body as the neutral request. Reasoning
 * items become thinking parts (their `encrypted_content` is the Anthropic signature the gateway gave
 * out); function and custom tool calls and their outputs become tool-call and tool-result parts (a
 * custom call's text wrapped as the arguments of the function the tool is offered as,
 * custom-tools.ts); the tools, those of `additional_tools` items included, are read by
 * read-responses-tools.ts. What a converted channel cannot do without changing what was asked is
 * refused with a 400 that names it (forcing a tool it cannot run, item references, stored state it
 * does not hold); what it can do without (built-in tools and their items, fields it has no place
 * for) is dropped and named in the returned warnings.
 */
import type { NeutralPart, NeutralRequest, NeutralTurn } from '../../../contracts/neutral/request.ts';
import type {
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesRequest,
} from '../../../contracts/openai/responses-request.ts';
import { GatewayError } from '../../errors.ts';
import type { ReaderOptions, ReadRequest } from '../read-request.ts';
import { flatToolName } from './client-tools.ts';
import { isExpanded } from './continuation.ts';
import { customArguments } from './custom-tools.ts';
import { readToolChoice, readTools } from './read-responses-tools.ts';

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
  context: Context,
) {
  const { warnings } = context;
  const type = item.type ?? 'message';
  if (type === 'message' && 'role' in item) {
    const message = item as Extract<ResponsesInputItem, { role: unknown }>;
    if (message.role !== 'system' && message.role !== 'developer') {
      push(request.turns, message.role, contentParts(message.content, warnings));
    } else if (request.turns.length === 0) {
      request.system.push(textOf(message.content));
    } else {
      // Within the conversation: a system turn where it was given.
      push(request.turns, 'system', [{ type: 'text', text: textOf(message.content) }]);
    }
    return;
  }
  if (type === 'function_call' && 'call_id' in item && 'arguments' in item) {
    const call = item as Extract<ResponsesInputItem, { type: 'function_call' }>;
    const name = call.namespace ? flatToolName(call.namespace, call.name) : call.name;
    push(request.turns, 'assistant', [{ type: 'tool-call', id: call.call_id, name, arguments: call.arguments }]);
    return;
  }
  if (type === 'custom_tool_call' && 'call_id' in item && 'input' in item) {
    const call = item as Extract<ResponsesInputItem, { type: 'custom_tool_call' }>;
    const name = call.namespace ? flatToolName(call.namespace, call.name) : call.name;
    const part: NeutralPart = { type: 'tool-call', id: call.call_id, name, arguments: customArguments(call.input) };
    push(request.turns, 'assistant', [part]);
    return;
  }
  if ((type === 'function_call_output' || type === 'custom_tool_call_output') && 'output' in item) {
    const result = item as Extract<ResponsesInputItem, { type: 'function_call_output' | 'custom_tool_call_output' }>;
    push(request.turns, 'user', [{ type: 'tool-result', callId: result.call_id, output: textOf(result.output) }]);
    return;
  }
  // Its tools are read with the request's tools (client-tools.ts).
  if (type === 'additional_tools') return;
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
  // The gateway's own compaction items were restored to their summaries before this (compaction.ts);
  // another provider's is sealed by that provider, and the turns it stands for are gone.
  if (type === 'compaction') {
    context.once(`compaction items of another provider dropped: ${context.target} cannot open them`);
    return;
  }
  // An item that stands for stored content would leave a hole the model cannot see: refused.
  if (type === 'item_reference') {
    throw refused(
      'Input items of type item_reference are not available for this model: its channel keeps no items to refer to. Send the items themselves.',
      `input[${index}]`,
    );
  }
  // A built-in tool's call or output (web_search_call, …): what it found is in the messages around it.
  context.once(`${type} items dropped: ${context.target} runs no built-in tools`);
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

/**
 * The request fields this reader converts or the gateway keeps; any other field the client set
 * (`include`, `prompt_cache_key`, `truncation`, `service_tier`, fields OpenAI adds later) is dropped
 * with a warning.
 */
const READ_FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'reasoning',
  'text',
  'metadata',
  'stream',
  'store',
  'previous_response_id',
  'user',
]);

interface Context {
  warnings: string[];
  target: string;
  /** adds a warning unless it was given already (one per dropped kind, not per item) */
  once(warning: string): void;
}

export function readResponsesRequest(
  body: ResponsesRequest,
  { target }: ReaderOptions = { target: 'the channel' },
): ReadRequest {
  // The relay expands a stored conversation into input before this reads it (continuation.ts).
  if (body.previous_response_id && !isExpanded(body)) {
    throw refused(
      'previous_response_id is not available here: this gateway keeps no responses. Send the earlier turns in input.',
      'previous_response_id',
    );
  }
  const warnings: string[] = [];
  const context: Context = {
    warnings,
    target,
    once: (warning) => {
      if (!warnings.includes(warning)) warnings.push(warning);
    },
  };
  const conversation = { system: body.instructions ? [body.instructions] : [], turns: [] as NeutralTurn[] };
  if (typeof body.input === 'string') {
    conversation.turns.push({ role: 'user', parts: [{ type: 'text', text: body.input }] });
  } else {
    for (const [index, item] of (body.input ?? []).entries()) readItem(item, index, conversation, context);
  }
  if (conversation.turns.length === 0) throw refused('input must hold at least one message.', 'input');
  if (body.metadata) warnings.push('metadata dropped: kept in the reply only');
  const effort = body.reasoning?.effort;
  const summary = body.reasoning?.summary;
  const request: NeutralRequest = {
    model: body.model,
    system: conversation.system,
    turns: conversation.turns,
    tools: readTools(body, context),
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
  for (const [field, value] of Object.entries(body)) {
    if (!READ_FIELDS.has(field) && value !== null) warnings.push(`${field} dropped: no ${target} equivalent`);
  }
  return { request, warnings };
}
