/**
 * @module gateway/providers/conversion/openai-messages-to-anthropic
 * OpenAI chat messages as Anthropic's `system` and turns (docs/wire-formats.md §3.1): system and developer
 * messages are hoisted into `system`; tool calls become `tool_use` blocks and tool messages
 * `tool_result` blocks of one user turn; consecutive same-role turns are merged, as Anthropic would.
 */
import type { ChatMessage } from '../../../contracts/openai/chat-message.ts';
import { parseToolArguments } from './tool-arguments.ts';

export type AnthropicBlock = Record<string, unknown>;

export interface AnthropicTurn {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface ConvertedMessages {
  system: AnthropicBlock[];
  messages: AnthropicTurn[];
}

type Part = { type: string; [key: string]: unknown };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * Anthropic accepts only `[a-zA-Z0-9_-]` in tool ids; OpenAI-compatible servers send others
 * (`functions.Bash:0`). The same mapping is applied to tool_use ids and to the tool_result ids that
 * answer them, so the pair still matches (pitfalls 10 and 11).
 */
export function sanitizeToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu_unnamed';
}

function textOf(content: string | readonly Part[] | null | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? [])
    .map((part) =>
      typeof part['text'] === 'string' ? part['text'] : typeof part['refusal'] === 'string' ? part['refusal'] : '',
    )
    .join('');
}

/**
 * What an empty user message is sent as. Dropped, it would leave the assistant's text last, which
 * Anthropic continues as a prefill instead of answering; it cannot be sent empty (pitfall 9).
 */
export const EMPTY_USER_MESSAGE = '(empty message)';

/** Anthropic refuses empty and whitespace-only text blocks (pitfall 9); they carry nothing anyway. */
function textBlocks(text: string): AnthropicBlock[] {
  return text.trim() ? [{ type: 'text', text }] : [];
}

function imageBlock(url: string): AnthropicBlock {
  const inline = DATA_URL.exec(url);
  return inline
    ? { type: 'image', source: { type: 'base64', media_type: inline[1], data: inline[2] } }
    : { type: 'image', source: { type: 'url', url } };
}

function documentBlock(file: { filename?: string; file_data?: string; file_id?: string }, warnings: string[]) {
  if (!file.file_data) {
    warnings.push('file part with file_id dropped: Anthropic cannot read OpenAI file ids');
    return [];
  }
  const inline = DATA_URL.exec(file.file_data);
  const source = { type: 'base64', media_type: inline?.[1] ?? 'application/pdf', data: inline?.[2] ?? file.file_data };
  return [{ type: 'document', source, ...(file.filename && { title: file.filename }) }];
}

function userBlocks(content: string | readonly Part[], warnings: string[]): AnthropicBlock[] {
  if (typeof content === 'string') return textBlocks(content);
  return content.flatMap((part): AnthropicBlock[] => {
    switch (part.type) {
      case 'text':
        return textBlocks(String(part['text']));
      case 'image_url':
        // `detail` has no Anthropic counterpart; the image is sent at the provider's own resolution.
        return [imageBlock(String((part['image_url'] as { url: string }).url))];
      case 'file':
        return documentBlock(part['file'] as { filename?: string; file_data?: string }, warnings);
      default:
        warnings.push(`${part.type} part dropped: Anthropic has no equivalent`);
        return [];
    }
  });
}

/** Text parts stay separate blocks, so `12:00` and `CET` do not run together as `12:00CET`. */
function toolResultContent(content: string | readonly Part[]): string | AnthropicBlock[] | undefined {
  if (typeof content === 'string') return content || undefined;
  const blocks = content.flatMap((part) => (typeof part['text'] === 'string' ? textBlocks(part['text']) : []));
  return blocks.length ? blocks : undefined;
}

function toolInput(argumentsText: string, warnings: string[]): Record<string, unknown> {
  const input = parseToolArguments(argumentsText);
  if (!input) warnings.push('tool call arguments that are not a JSON object were sent as {}');
  return input ?? {};
}

function assistantBlocks(message: Extract<ChatMessage, { role: 'assistant' }>, warnings: string[]): AnthropicBlock[] {
  // Thinking blocks a client kept from an earlier reply (LiteLLM's `thinking_blocks` field) go first,
  // unmodified, as Anthropic verifies their signatures.
  const thinking = Array.isArray(message['thinking_blocks']) ? (message['thinking_blocks'] as AnthropicBlock[]) : [];
  const calls = (message.tool_calls ?? []).map((call) => ({
    type: 'tool_use',
    id: sanitizeToolId(call.id),
    name: call.function.name,
    input: toolInput(call.function.arguments, warnings),
  }));
  return [...thinking, ...textBlocks(textOf(message.content as readonly Part[] | string | null)), ...calls];
}

export function openAIMessagesToAnthropic(messages: readonly ChatMessage[], warnings: string[]): ConvertedMessages {
  const system: AnthropicBlock[] = [];
  const turns: AnthropicTurn[] = [];
  const push = (role: AnthropicTurn['role'], blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        // Anthropic has one system prompt; its position in the conversation is lost.
        system.push(...textBlocks(textOf(message.content as readonly Part[] | string)));
        break;
      case 'user': {
        const blocks = userBlocks(message.content as readonly Part[] | string, warnings);
        if (blocks.length === 0 && turns.at(-1)?.role !== 'user') {
          blocks.push({ type: 'text', text: EMPTY_USER_MESSAGE });
          warnings.push(`an empty user message was sent as "${EMPTY_USER_MESSAGE}": Anthropic refuses empty turns`);
        }
        push('user', blocks);
        break;
      }
      case 'assistant':
        push('assistant', assistantBlocks(message, warnings));
        break;
      case 'tool': {
        const content = toolResultContent(message.content as readonly Part[] | string);
        push('user', [
          { type: 'tool_result', tool_use_id: sanitizeToolId(message.tool_call_id), ...(content && { content }) },
        ]);
        break;
      }
    }
  }
  return { system, messages: turns };
}
