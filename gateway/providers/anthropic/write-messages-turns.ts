/**
 * @module gateway/providers/anthropic/write-messages-turns
 * The neutral system prompt and turns as Anthropic's `system` and `messages` (docs/wire-formats.md
 * §3.1): tool calls become `tool_use` blocks and tool results `tool_result` blocks, first in their
 * user turn; signed thinking goes first in its assistant turn, unmodified, as Anthropic verifies it;
 * consecutive turns of one role are merged; empty text is never sent (pitfall 9).
 */
import type { MessagesRequest } from '../../../contracts/anthropic/messages-request.ts';
import type {
  NeutralCache,
  NeutralPart,
  NeutralRequest,
  NeutralResultContent,
  NeutralTurn,
} from '../../../contracts/neutral/request.ts';
import { sanitizeToolId } from '../conversion/anthropic-tool-id.ts';
import { parseToolArguments } from '../conversion/tool-arguments.ts';
import { readSignature } from '../gemini/thought-signature.ts';

export type AnthropicBlock = Record<string, unknown>;
export type AnthropicTurn = { role: 'user' | 'assistant'; content: AnthropicBlock[] };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * What an empty user message is sent as. Dropped, it would leave the assistant's text last, which
 * Anthropic continues as a prefill instead of answering; it cannot be sent empty (pitfall 9).
 */
export const EMPTY_USER_MESSAGE = '(empty message)';

export function cacheControl(cache: NeutralCache | undefined): { cache_control?: AnthropicBlock } {
  if (!cache) return {};
  return { cache_control: { type: 'ephemeral', ...(cache.ttl && { ttl: cache.ttl }) } };
}

/** Anthropic refuses empty and whitespace-only text blocks (pitfall 9); they carry nothing anyway. */
function textBlocks(text: string, cache?: NeutralCache): AnthropicBlock[] {
  return text.trim() ? [{ type: 'text', text, ...cacheControl(cache) }] : [];
}

function imageBlock(url: string, cache: NeutralCache | undefined): AnthropicBlock {
  const inline = DATA_URL.exec(url);
  const source = inline ? { type: 'base64', media_type: inline[1], data: inline[2] } : { type: 'url', url };
  // `detail` has no Anthropic counterpart; the image is sent at the provider's own resolution.
  return { type: 'image', source, ...cacheControl(cache) };
}

function documentBlock(part: Extract<NeutralPart, { type: 'file' }>, warnings: string[]): AnthropicBlock[] {
  if (!part.data) {
    warnings.push('file part with file_id dropped: Anthropic cannot read OpenAI file ids');
    return [];
  }
  const inline = DATA_URL.exec(part.data);
  const source = { type: 'base64', media_type: inline?.[1] ?? 'application/pdf', data: inline?.[2] ?? part.data };
  return [{ type: 'document', source, ...(part.filename && { title: part.filename }), ...cacheControl(part.cache) }];
}

function contentBlocks(part: NeutralResultContent, warnings: string[]): AnthropicBlock[] {
  switch (part.type) {
    case 'text':
      return textBlocks(part.text, part.cache);
    case 'image':
      return [imageBlock(part.url, part.cache)];
    case 'file':
      return documentBlock(part, warnings);
  }
}

/** String content stays a string; parts stay separate blocks, so `12:00` and `CET` do not run together. */
function toolResultBlock(part: Extract<NeutralPart, { type: 'tool-result' }>, warnings: string[]): AnthropicBlock {
  const content = part.content
    ? part.content.flatMap((item) => contentBlocks(item, warnings))
    : part.output || undefined;
  return {
    type: 'tool_result',
    tool_use_id: sanitizeToolId(part.callId),
    ...(content?.length && { content }),
    ...(part.isError && { is_error: true }),
    ...cacheControl(part.cache),
  };
}

function toolInput(argumentsText: string, warnings: string[]): Record<string, unknown> {
  const input = parseToolArguments(argumentsText);
  if (!input) warnings.push('tool call arguments that are not a JSON object were sent as {}');
  return input ?? {};
}

function userBlocks(parts: NeutralPart[], warnings: string[]): AnthropicBlock[] {
  const results: AnthropicBlock[] = [];
  const rest: AnthropicBlock[] = [];
  for (const part of parts) {
    if (part.type === 'tool-result') results.push(toolResultBlock(part, warnings));
    else if (part.type === 'text' || part.type === 'image' || part.type === 'file')
      rest.push(...contentBlocks(part, warnings));
  }
  // Anthropic wants a turn's tool results before anything else in it.
  return [...results, ...rest];
}

function assistantBlocks(parts: NeutralPart[], warnings: string[]): AnthropicBlock[] {
  const thinking: AnthropicBlock[] = [];
  const rest: AnthropicBlock[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'thinking':
        // Unsigned thinking cannot be verified upstream, and a Gemini signature (after a failover)
        // is not Claude's: Anthropic would refuse the whole turn for either.
        if (part.signature && readSignature(part.signature) === null)
          thinking.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        break;
      case 'redacted-thinking':
        thinking.push({ type: 'redacted_thinking', data: part.data });
        break;
      case 'text':
        rest.push(...textBlocks(part.text, part.cache));
        break;
      case 'tool-call':
        rest.push({
          type: 'tool_use',
          id: sanitizeToolId(part.id),
          name: part.name,
          input: toolInput(part.arguments, warnings),
          ...cacheControl(part.cache),
        });
        break;
    }
  }
  return [...thinking, ...rest];
}

export function writeSystem(request: NeutralRequest): Exclude<MessagesRequest['system'], string | undefined> {
  const blocks = request.system.flatMap((text) => (text.trim() ? [{ type: 'text' as const, text }] : []));
  const last = blocks.at(-1);
  if (last && request.systemCache) Object.assign(last, cacheControl(request.systemCache));
  return blocks;
}

export function writeTurns(turns: readonly NeutralTurn[], warnings: string[]): AnthropicTurn[] {
  const written: AnthropicTurn[] = [];
  for (const turn of turns) {
    // This kind takes no system turns: they were moved to the system prompt (converted-request.ts).
    if (turn.role === 'system') continue;
    const blocks = turn.role === 'user' ? userBlocks(turn.parts, warnings) : assistantBlocks(turn.parts, warnings);
    const last = written.at(-1);
    if (blocks.length === 0 && turn.role === 'user' && last?.role !== 'user') {
      blocks.push({ type: 'text', text: EMPTY_USER_MESSAGE });
      warnings.push(`an empty user message was sent as "${EMPTY_USER_MESSAGE}": Anthropic refuses empty turns`);
    }
    if (blocks.length === 0) continue;
    if (last?.role === turn.role) last.content.push(...blocks);
    else written.push({ role: turn.role, content: blocks });
  }
  return written;
}
