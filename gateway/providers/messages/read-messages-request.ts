/**
 * @module gateway/providers/messages/read-messages-request
 * The Messages request reader: a `POST /v1/messages` body as the neutral request, for a channel of
 * another format. Thinking blocks keep their signatures (a kind that verifies them gets them back),
 * `cache_control` becomes cache breakpoints, `thinking.budget_tokens` the reasoning budget and its
 * effort bucket, `output_config.format` the response format. What has no neutral place is dropped and
 * named in the warnings. The `-thinking` model suffix is resolved before (conversion/thinking.ts), so
 * the body read here carries the `thinking` it asked for.
 */
import {
  type CacheControl,
  type ContentBlockParam,
  isKnownBlock,
  isKnownResultItem,
  type KnownResultItem,
} from '../../../contracts/anthropic/content-block.ts';
import {
  type AnthropicMessage,
  type AnthropicToolChoice,
  DEFAULT_MAX_TOKENS,
  isCustomTool,
  type MessagesRequest,
} from '../../../contracts/anthropic/messages-request.ts';
import type {
  NeutralCache,
  NeutralPart,
  NeutralRequest,
  NeutralResultContent,
  NeutralTurn,
} from '../../../contracts/neutral/request.ts';
import { effortForBudget, type ReasoningEffort } from '../conversion/thinking.ts';
import { pushTurn, type ReaderOptions, type ReadRequest } from '../read-request.ts';

/**
 * The request fields this reader converts. Any other field the client set (`service_tier`,
 * `container`, `mcp_servers`, `context_management`, a top-level `cache_control`, fields Anthropic
 * adds later) has no neutral place: it is dropped with a warning.
 */
const READ_FIELDS = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
]);

type Context = { warnings: string[]; target: string };

function cacheOf(control: CacheControl | null | undefined): { cache?: NeutralCache } {
  if (!control) return {};
  return { cache: control.ttl ? { ttl: control.ttl } : {} };
}

function dropped(block: { type: string }, context: Context): [] {
  context.warnings.push(`${block.type} block dropped: no ${context.target} equivalent`);
  return [];
}

/** Text, images and documents: what a user turn and a tool result may both hold. */
function contentPart(block: KnownResultItem, context: Context): NeutralResultContent[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block.text, ...cacheOf(block.cache_control) }];
    case 'image': {
      const { source } = block;
      const cache = cacheOf(block.cache_control);
      if (source.type === 'base64')
        return [{ type: 'image', url: `data:${source.media_type};base64,${source.data}`, ...cache }];
      if (source.type === 'url') return [{ type: 'image', url: source.url, ...cache }];
      context.warnings.push(`image with a ${source.type} source dropped: ${context.target} takes URLs or inline data`);
      return [];
    }
    case 'document': {
      const { source } = block;
      const cache = cacheOf(block.cache_control);
      if (source.type === 'text' && source.data !== undefined) return [{ type: 'text', text: source.data, ...cache }];
      if (source.type === 'base64' && source.data !== undefined) {
        const data = `data:${source.media_type ?? 'application/pdf'};base64,${source.data}`;
        return [{ type: 'file', data, filename: block.title ?? 'document.pdf', ...cache }];
      }
      context.warnings.push(`document with a ${source.type} source dropped: ${context.target} takes inline files`);
      return [];
    }
  }
}

function toolResult(block: Extract<ContentBlockParam, { type: 'tool_result' }>, context: Context): NeutralPart {
  const items = typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : (block.content ?? []);
  const content = items.flatMap((item) =>
    isKnownResultItem(item) ? contentPart(item, context) : dropped(item, context),
  );
  const output = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return {
    type: 'tool-result',
    callId: block.tool_use_id,
    output,
    ...(block.is_error && { isError: true }),
    ...(Array.isArray(block.content) && { content }),
    ...cacheOf(block.cache_control),
  };
}

function parts(content: MessagesRequest['messages'][number]['content'], context: Context): NeutralPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.flatMap((block): NeutralPart[] => {
    if (!isKnownBlock(block)) return dropped(block, context);
    switch (block.type) {
      case 'tool_use':
        return [
          {
            type: 'tool-call',
            id: block.id,
            name: block.name,
            arguments: JSON.stringify(block.input),
            ...cacheOf(block.cache_control),
          },
        ];
      case 'tool_result':
        return [toolResult(block, context)];
      case 'thinking':
        return [{ type: 'thinking', text: block.thinking, signature: block.signature }];
      case 'redacted_thinking':
        return [{ type: 'redacted-thinking', data: block.data }];
      default:
        return contentPart(block, context);
    }
  });
}

/**
 * A `system` message: before the first turn, part of the system prompt; later, a system turn where it
 * was given (a kind without system turns gets it moved, converted-request.ts). Only text instructs.
 */
function systemMessage(content: AnthropicMessage['content'], turns: NeutralTurn[], system: string[], context: Context) {
  const text = (
    typeof content === 'string'
      ? [content]
      : content.flatMap((block) => {
          if (block.type === 'text' && typeof block['text'] === 'string') return [block['text']];
          return dropped(block, context);
        })
  ).join('\n');
  if (text === '') return;
  if (turns.length === 0) system.push(text);
  else pushTurn(turns, 'system', [{ type: 'text', text }]);
}

function readSystem(system: MessagesRequest['system']): Pick<NeutralRequest, 'system' | 'systemCache'> {
  if (system === undefined) return { system: [] };
  if (typeof system === 'string') return { system: system ? [system] : [] };
  const text = system.map((block) => block.text).join('\n');
  // One system text, so the breakpoint of any block covers it: it sat at or before its end.
  const cached = system.findLast((block) => block.cache_control);
  return { system: text ? [text] : [], ...(cached && { systemCache: cacheOf(cached.cache_control).cache }) };
}

function readTools(body: MessagesRequest, context: Context): NeutralRequest['tools'] {
  return (body.tools ?? []).flatMap((tool): NeutralRequest['tools'] => {
    if (!isCustomTool(tool)) {
      context.warnings.push(`server tool ${tool.name} dropped: ${context.target} runs no Anthropic server tools`);
      return [];
    }
    return [
      {
        name: tool.name,
        ...(tool.description && { description: tool.description }),
        parameters: tool.input_schema,
        ...cacheOf(tool.cache_control),
      },
    ];
  });
}

function readToolChoice(choice: AnthropicToolChoice | undefined): NeutralRequest['toolChoice'] {
  switch (choice?.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { name: choice.name };
    default:
      return undefined;
  }
}

/** Anthropic's effort levels on the neutral scale, which stops at high. */
const EFFORTS: Readonly<Record<string, ReasoningEffort>> = { low: 'low', medium: 'medium', high: 'high', max: 'high' };

/**
 * Thinking and `output_config.effort` as the neutral reasoning: the named effort wins over the one a
 * budget implies. Adaptive thinking without one leaves the amount to the model: the middle of the
 * scale. An effort without thinking is dropped: other kinds spend it on reasoning only, which the
 * client did not turn on.
 */
function readReasoning(body: MessagesRequest, context: Context): NeutralRequest['reasoning'] {
  const { thinking } = body;
  const asked = body.output_config?.effort;
  const named = asked === undefined ? undefined : EFFORTS[asked];
  const on = thinking?.type === 'enabled' || thinking?.type === 'adaptive';
  if (asked !== undefined && (named === undefined || !on)) {
    const why = on ? `${context.target} knows low, medium and high` : 'thinking is off';
    context.warnings.push(`output_config.effort ${asked} dropped: ${why}`);
  }
  if (thinking?.type === 'enabled') {
    return { effort: named ?? effortForBudget(thinking.budget_tokens), budgetTokens: thinking.budget_tokens };
  }
  if (thinking?.type === 'adaptive') return { effort: named ?? 'medium' };
  return undefined;
}

export function readMessagesRequest(body: MessagesRequest, { target }: ReaderOptions): ReadRequest {
  const context: Context = { warnings: [], target };
  const turns: NeutralTurn[] = [];
  const leading = readSystem(body.system);
  for (const message of body.messages) {
    if (message.role !== 'system') pushTurn(turns, message.role, parts(message.content, context));
    else systemMessage(message.content, turns, leading.system, context);
  }
  const request: NeutralRequest = {
    model: body.model,
    ...leading,
    turns,
    tools: readTools(body, context),
    sampling: {
      maxOutputTokens: body.max_tokens ?? DEFAULT_MAX_TOKENS,
      ...(body.temperature !== undefined && { temperature: body.temperature }),
      ...(body.top_p !== undefined && { topP: body.top_p }),
      ...(body.top_k !== undefined && { topK: body.top_k }),
      ...(body.stop_sequences?.length && { stop: body.stop_sequences }),
    },
    stream: body.stream === true,
  };
  const toolChoice = readToolChoice(body.tool_choice);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (body.tool_choice && 'disable_parallel_tool_use' in body.tool_choice && body.tool_choice.disable_parallel_tool_use)
    request.parallelToolCalls = false;
  const reasoning = readReasoning(body, context);
  if (reasoning) request.reasoning = reasoning;
  const format = body.output_config?.format;
  if (format?.type === 'json_schema' && format.schema)
    request.responseFormat = { type: 'json-schema', name: 'structured_output', schema: format.schema };
  if (body.metadata?.user_id) request.user = body.metadata.user_id;
  for (const field of Object.keys(body)) {
    if (!READ_FIELDS.has(field)) context.warnings.push(`${field} dropped: no ${target} equivalent`);
  }
  for (const field of Object.keys(body.output_config ?? {})) {
    if (field !== 'format' && field !== 'effort')
      context.warnings.push(`output_config.${field} dropped: no ${target} equivalent`);
  }
  return { request, warnings: context.warnings };
}
