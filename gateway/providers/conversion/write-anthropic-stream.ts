/**
 * @module gateway/providers/conversion/write-anthropic-stream
 * Neutral reply parts as Anthropic events (docs/wire-formats.md TL;DR, Anthropic output): an `event:` line on
 * every event; one `message_start` first, with a usage object; blocks at indexes 0, 1, 2… with one open
 * at a time, each started, fed deltas of its own type and stopped (pitfalls 3, 4); no empty text
 * blocks; one `message_delta` with `output_tokens`, then `message_stop`. The stop reason is held until
 * the usage that follows it arrives, so both travel in the one `message_delta`.
 *
 * OpenAI-format servers may interleave the argument fragments of parallel tool calls (index 0, 1, 0,
 * 1…), and nothing says when a call is complete. So while a tool block is open, whatever else starts
 * (another call, text, thinking) is held in arrival order, and the open call keeps streaming; at the
 * end the open block is closed and each held block is sent whole. No fragment is ever dropped.
 */

import { sanitizeToolId } from './anthropic-tool-id.ts';
import { anthropicStopReason } from './map-stop-reason.ts';
import { anthropicUsage, emptyAnthropicUsage } from './map-usage.ts';
import type { FinishReason, ReplyPart } from './reply.ts';
import { anthropicMessageId } from './write-anthropic-message.ts';

type BlockType = 'text' | 'thinking' | 'tool_use';

interface OpenBlock {
  type: BlockType;
  index: number;
  toolIndex: number | null;
}

/** A block that started while a tool block was open, kept whole until the end. */
type HeldBlock =
  | { type: 'text' | 'thinking'; text: string }
  | { type: 'tool_use'; toolIndex: number; id: string; name: string; arguments: string };

export class AnthropicStreamWriter {
  #started = false;
  #closed = false;
  #open: OpenBlock | null = null;
  #nextIndex = 0;
  #calledTools = false;
  #finish: { reason: FinishReason; stopSequence: string | null } | null = null;
  #usage = emptyAnthropicUsage;
  readonly #held: HeldBlock[] = [];
  /** what `message_start` says when the upstream's start reports no usage */
  readonly #startUsage: typeof emptyAnthropicUsage;

  /**
   * `inputTokens`: the gateway's estimate of the prompt. Upstreams of other formats report the input
   * only at the end, which `message_delta` restates; a client that shows the context size from
   * `message_start` (Claude Code does) would read zero until then.
   */
  constructor(options: { inputTokens?: number } = {}) {
    this.#startUsage = { ...emptyAnthropicUsage, input_tokens: options.inputTokens ?? 0 };
  }

  write(part: ReplyPart): string {
    if (this.#closed) return '';
    switch (part.type) {
      case 'start':
        return this.#start(part.id, part.model, part.usage ? anthropicUsage(part.usage) : this.#startUsage);
      case 'text-delta':
        if (this.#holding()) return this.#holdText('text', part.text);
        return this.#start() + this.#delta('text', { type: 'text_delta', text: part.text });
      case 'reasoning-delta':
        if (this.#holding()) return this.#holdText('thinking', part.text);
        return this.#start() + this.#delta('thinking', { type: 'thinking_delta', thinking: part.text });
      case 'tool-call-start':
        this.#calledTools = true;
        if (this.#holding()) {
          this.#held.push({ type: 'tool_use', toolIndex: part.toolIndex, id: part.id, name: part.name, arguments: '' });
          return '';
        }
        return this.#start() + this.#openBlock('tool_use', toolUseBlock(part.id, part.name), part.toolIndex);
      case 'tool-call-delta':
        return this.#toolArguments(part.toolIndex, part.arguments);
      case 'finish':
        // Blocks stay open until the end: an interleaving server may still send a fragment of a call.
        this.#finish ??= { reason: part.reason, stopSequence: part.stopSequence };
        return this.#start();
      case 'usage':
        this.#usage = anthropicUsage(part.usage);
        return '';
      case 'reasoning-signature': {
        // Signed thinking (Claude on Bedrock) closes with its signature, which the client sends back.
        if (this.#open?.type !== 'thinking' || !part.signature) return '';
        const delta = { type: 'signature_delta', signature: part.signature };
        return this.#event('content_block_delta', { index: this.#open.index, delta });
      }
      case 'end':
        return this.#end();
      case 'error':
        this.#closed = true;
        return this.#event('error', { error: { type: part.errorType, message: part.message } });
    }
  }

  #holding(): boolean {
    return this.#open?.type === 'tool_use';
  }

  #holdText(type: 'text' | 'thinking', text: string): string {
    const last = this.#held.at(-1);
    if (last?.type === type) last.text += text;
    else if (text) this.#held.push({ type, text });
    return '';
  }

  #toolArguments(toolIndex: number, fragment: string): string {
    if (this.#open?.toolIndex === toolIndex) {
      const delta = { type: 'input_json_delta', partial_json: fragment };
      return this.#event('content_block_delta', { index: this.#open.index, delta });
    }
    const held = this.#held.find((block) => block.type === 'tool_use' && block.toolIndex === toolIndex);
    if (held?.type === 'tool_use') held.arguments += fragment;
    return '';
  }

  /** Closes the open block and sends every held block whole, in the order they started. */
  #flush(): string {
    let frames = this.#closeBlock();
    for (const block of this.#held.splice(0)) {
      if (block.type === 'tool_use') {
        frames += this.#openBlock('tool_use', toolUseBlock(block.id, block.name), block.toolIndex);
        if (block.arguments) frames += this.#toolArguments(block.toolIndex, block.arguments);
      } else if (block.type === 'text') {
        frames += this.#delta('text', { type: 'text_delta', text: block.text });
      } else {
        frames += this.#delta('thinking', { type: 'thinking_delta', thinking: block.text });
      }
    }
    return frames + this.#closeBlock();
  }

  #start(id = 'gateway', model = '', usage = this.#startUsage): string {
    if (this.#started) return '';
    this.#started = true;
    const message = {
      id: anthropicMessageId(id),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    return this.#event('message_start', { message });
  }

  #delta(type: 'text' | 'thinking', delta: Record<string, string>): string {
    let frames = '';
    if (this.#open?.type !== type) {
      const block = type === 'text' ? { type, text: '' } : { type, thinking: '', signature: '' };
      frames = this.#openBlock(type, block, null);
    }
    return frames + this.#event('content_block_delta', { index: this.#open!.index, delta });
  }

  #openBlock(type: BlockType, contentBlock: Record<string, unknown>, toolIndex: number | null): string {
    const frames = this.#closeBlock();
    this.#open = { type, index: this.#nextIndex++, toolIndex };
    return frames + this.#event('content_block_start', { index: this.#open.index, content_block: contentBlock });
  }

  #closeBlock(): string {
    if (!this.#open) return '';
    const index = this.#open.index;
    this.#open = null;
    return this.#event('content_block_stop', { index });
  }

  #end(): string {
    const frames = this.#start() + this.#flush();
    this.#closed = true;
    const finish = this.#finish ?? { reason: 'stop', stopSequence: null };
    const delta = {
      stop_reason: anthropicStopReason(finish.reason, this.#calledTools),
      stop_sequence: finish.stopSequence,
    };
    return frames + this.#event('message_delta', { delta, usage: this.#usage }) + this.#event('message_stop', {});
  }

  #event(name: string, payload: Record<string, unknown>): string {
    return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...payload })}\n\n`;
  }
}

function toolUseBlock(id: string, name: string): Record<string, unknown> {
  return { type: 'tool_use', id: sanitizeToolId(id), name, input: {} };
}
