/**
 * @module gateway/providers/conversion/write-anthropic-stream
 * Neutral reply parts as Anthropic events (wire-formats TL;DR, Anthropic output): an `event:` line on
 * every event; one `message_start` first, with a usage object; blocks at indexes 0, 1, 2… with one open
 * at a time, each started, fed deltas of its own type and stopped (pitfalls 3, 4); no empty text
 * blocks; one `message_delta` with `output_tokens`, then `message_stop`. The stop reason is held until
 * the usage that follows it arrives, so both travel in the one `message_delta`.
 */
import { anthropicStopReason } from './map-stop-reason.ts';
import { anthropicUsage, emptyAnthropicUsage } from './map-usage.ts';
import { sanitizeToolId } from './openai-messages-to-anthropic.ts';
import type { FinishReason, ReplyPart } from './reply.ts';
import { anthropicMessageId } from './write-anthropic-message.ts';

type BlockType = 'text' | 'thinking' | 'tool_use';

interface OpenBlock {
  type: BlockType;
  index: number;
  toolIndex: number | null;
}

export class AnthropicStreamWriter {
  #started = false;
  #closed = false;
  #open: OpenBlock | null = null;
  #nextIndex = 0;
  #calledTools = false;
  #finish: { reason: FinishReason; stopSequence: string | null } | null = null;
  #usage = emptyAnthropicUsage;

  write(part: ReplyPart): string {
    if (this.#closed) return '';
    switch (part.type) {
      case 'start':
        return this.#start(part.id, part.model, part.usage ? anthropicUsage(part.usage) : emptyAnthropicUsage);
      case 'text-delta':
        return this.#start() + this.#delta('text', { type: 'text_delta', text: part.text });
      case 'reasoning-delta':
        return this.#start() + this.#delta('thinking', { type: 'thinking_delta', thinking: part.text });
      case 'tool-call-start': {
        this.#calledTools = true;
        const block = { type: 'tool_use', id: sanitizeToolId(part.id), name: part.name, input: {} };
        return this.#start() + this.#openBlock('tool_use', block, part.toolIndex);
      }
      case 'tool-call-delta':
        // One block is open at a time: a fragment for a call that is already closed cannot be sent.
        // OpenAI-format servers stream calls one after the other, so this does not happen in practice.
        if (this.#open?.toolIndex !== part.toolIndex) return '';
        return this.#event('content_block_delta', {
          index: this.#open.index,
          delta: { type: 'input_json_delta', partial_json: part.arguments },
        });
      case 'finish':
        this.#finish ??= { reason: part.reason, stopSequence: part.stopSequence };
        return this.#start() + this.#closeBlock();
      case 'usage':
        this.#usage = anthropicUsage(part.usage);
        return '';
      case 'end':
        return this.#end();
      case 'error':
        this.#closed = true;
        return this.#event('error', { error: { type: part.errorType, message: part.message } });
    }
  }

  #start(id = 'gateway', model = '', usage = emptyAnthropicUsage): string {
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
    const frames = this.#start() + this.#closeBlock();
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
