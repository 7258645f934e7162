/**
 * @module gateway/providers/conversion/anthropic-request-to-openai
 * An Anthropic Messages request as a Chat Completions request (docs/wire-formats.md §3.2). Tool results become
 * `tool` messages placed before the rest of their user turn; thinking blocks the client sends back are
 * dropped (an OpenAI-format upstream cannot verify them). Dropped fields are named in the warnings.
 */
import { DEFAULT_MAX_TOKENS } from '../../../contracts/anthropic/messages-request.ts';
import type { ConvertedRequest } from './openai-request-to-anthropic.ts';
import { effortForBudget } from './thinking.ts';

type Block = { type: string; [key: string]: unknown };
type Turn = { role: 'user' | 'assistant'; content: string | Block[] };
type OpenAIMessage = Record<string, unknown>;
type Part = Record<string, unknown>;

/** OpenAI allows at most four stop sequences. */
const MAX_STOP_SEQUENCES = 4;
const DROPPED_FIELDS = ['top_k', 'service_tier', 'container', 'mcp_servers', 'context_management', 'cache_control'];

function imagePart(source: Record<string, unknown>, warnings: string[]): Part[] {
  if (source['type'] === 'base64') {
    return [{ type: 'image_url', image_url: { url: `data:${source['media_type']};base64,${source['data']}` } }];
  }
  if (source['type'] === 'url') return [{ type: 'image_url', image_url: { url: source['url'] } }];
  warnings.push(
    `image with a ${String(source['type'])} source dropped: OpenAI-format upstreams take URLs or inline data`,
  );
  return [];
}

function documentPart(block: Block, warnings: string[]): Part[] {
  const source = block['source'] as Record<string, unknown>;
  if (source['type'] === 'text') return [{ type: 'text', text: String(source['data']) }];
  if (source['type'] === 'base64') {
    const filename = typeof block['title'] === 'string' ? block['title'] : 'document.pdf';
    return [{ type: 'file', file: { filename, file_data: `data:${source['media_type']};base64,${source['data']}` } }];
  }
  warnings.push(`document with a ${String(source['type'])} source dropped: OpenAI-format upstreams take inline files`);
  return [];
}

function contentParts(block: Block, warnings: string[]): Part[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block['text'] }];
    case 'image':
      return imagePart(block['source'] as Record<string, unknown>, warnings);
    case 'document':
      return documentPart(block, warnings);
    default:
      warnings.push(`${block.type} block dropped: no OpenAI equivalent`);
      return [];
  }
}

/** A user turn's text-only content is sent as a string: some OpenAI-compatible servers take no parts. */
function userContent(parts: Part[]): string | Part[] {
  return parts.every((part) => part['type'] === 'text') ? parts.map((part) => part['text']).join('\n') : parts;
}

function userMessages(blocks: Block[], warnings: string[]): OpenAIMessage[] {
  const messages: OpenAIMessage[] = [];
  const parts: Part[] = [];
  for (const block of blocks) {
    if (block.type !== 'tool_result') {
      parts.push(...contentParts(block, warnings));
      continue;
    }
    const content = block['content'];
    const resultBlocks = typeof content === 'string' ? [{ type: 'text', text: content }] : ((content as Block[]) ?? []);
    const text = resultBlocks
      .filter((item) => item.type === 'text')
      .map((item) => item['text'])
      .join('\n');
    // A tool message holds text only: images a tool returned follow in the user message instead.
    for (const item of resultBlocks.filter((item) => item.type !== 'text')) parts.push(...contentParts(item, warnings));
    messages.push({
      role: 'tool',
      tool_call_id: block['tool_use_id'],
      content: block['is_error'] ? `Error: ${text}` : text,
    });
  }
  if (parts.length) messages.push({ role: 'user', content: userContent(parts) });
  return messages;
}

function assistantMessage(blocks: Block[]): OpenAIMessage {
  const text = blocks
    .filter((block) => block.type === 'text')
    .map((block) => block['text'])
    .join('\n');
  const toolCalls = blocks
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({
      id: block['id'],
      type: 'function',
      function: { name: block['name'], arguments: JSON.stringify(block['input'] ?? {}) },
    }));
  if (toolCalls.length === 0) return { role: 'assistant', content: text };
  return { role: 'assistant', content: text || null, tool_calls: toolCalls };
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? (system as Block[]).map((block) => block['text']).join('\n') : '';
}

function convertTools(request: Record<string, unknown>, body: Record<string, unknown>, warnings: string[]) {
  const tools = ((request['tools'] as Block[] | undefined) ?? []).flatMap((tool) => {
    if (!tool['input_schema']) {
      warnings.push(
        `server tool ${String(tool['name'])} dropped: OpenAI-format upstreams run no Anthropic server tools`,
      );
      return [];
    }
    // Only the schema goes into `parameters`: the tool's own `type` is not part of it (pitfall 16).
    const definition = { name: tool['name'], description: tool['description'], parameters: tool['input_schema'] };
    return [{ type: 'function', function: definition }];
  });
  if (tools.length === 0) return;
  body['tools'] = tools;
  const choice = request['tool_choice'] as { type: string; name?: string; disable_parallel_tool_use?: boolean };
  if (choice?.type === 'auto') body['tool_choice'] = 'auto';
  else if (choice?.type === 'any') body['tool_choice'] = 'required';
  else if (choice?.type === 'none') body['tool_choice'] = 'none';
  else if (choice?.type === 'tool') body['tool_choice'] = { type: 'function', function: { name: choice.name } };
  if (choice?.disable_parallel_tool_use) body['parallel_tool_calls'] = false;
}

export function anthropicRequestToOpenAI(request: Record<string, unknown>): ConvertedRequest {
  const warnings: string[] = [];
  const messages: OpenAIMessage[] = [];
  const system = systemText(request['system']);
  if (system) messages.push({ role: 'system', content: system });
  for (const turn of request['messages'] as Turn[]) {
    if (typeof turn.content === 'string') messages.push({ role: turn.role, content: turn.content });
    else if (turn.role === 'user') messages.push(...userMessages(turn.content, warnings));
    else messages.push(assistantMessage(turn.content));
  }
  const body: Record<string, unknown> = { model: request['model'], messages };
  const thinking = request['thinking'] as { type: string; budget_tokens?: number } | undefined;
  const maxTokens = request['max_tokens'] ?? DEFAULT_MAX_TOKENS;
  if (thinking?.type === 'enabled' || thinking?.type === 'adaptive') {
    body['reasoning_effort'] = thinking.budget_tokens ? effortForBudget(thinking.budget_tokens) : 'medium';
    // Reasoning models refuse max_tokens and count their reasoning in max_completion_tokens.
    body['max_completion_tokens'] = maxTokens;
  } else {
    body['max_tokens'] = maxTokens;
  }
  if (request['stream'] === true) body['stream'] = true;
  if (request['temperature'] !== undefined) body['temperature'] = request['temperature'];
  if (request['top_p'] !== undefined) body['top_p'] = request['top_p'];
  const stop = (request['stop_sequences'] as string[] | undefined) ?? [];
  if (stop.length > MAX_STOP_SEQUENCES) warnings.push('stop sequences after the fourth dropped: OpenAI takes four');
  if (stop.length) body['stop'] = stop.slice(0, MAX_STOP_SEQUENCES);
  const userId = (request['metadata'] as { user_id?: string | null } | undefined)?.user_id;
  if (userId) body['user'] = userId;
  const format = (request['output_config'] as { format?: { type?: string; schema?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') {
    body['response_format'] = {
      type: 'json_schema',
      json_schema: { name: 'structured_output', schema: format.schema },
    };
  }
  convertTools(request, body, warnings);
  for (const field of DROPPED_FIELDS) {
    if (request[field] !== undefined) warnings.push(`${field} dropped: no OpenAI equivalent`);
  }
  return { body, warnings };
}
