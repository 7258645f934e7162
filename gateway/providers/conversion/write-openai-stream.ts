/**
 * @module gateway/providers/conversion/write-openai-stream
 * Neutral reply parts as OpenAI chunks (docs/wire-formats.md TL;DR, OpenAI output): `data:` lines only; the
 * same id, created and model in every chunk; choice index 0; `role` in the first delta only; a tool
 * call's id, type and name in its first delta only, with a 0-based per-call `index`; exactly one
 * finish_reason; the usage chunk (`choices: []`) only when the client asked, before `[DONE]`.
 */
import type { TokenCounts } from '../provider.ts';
import { openAIErrorType } from './map-error-type.ts';
import { openAIFinishReason } from './map-stop-reason.ts';
import { openAIUsage } from './map-usage.ts';
import type { ReplyPart } from './reply.ts';
import { openAICompletionId } from './write-openai-completion.ts';

export interface OpenAIStreamWriterOptions {
  includeUsage: boolean;
  /** unix seconds, the same in every chunk */
  created: number;
}

export class OpenAIStreamWriter {
  readonly #options: OpenAIStreamWriterOptions;
  #id = 'chatcmpl-gateway';
  #model = '';
  #started = false;
  #finished = false;
  #closed = false;
  #calledTools = false;
  #usage: TokenCounts | null = null;

  constructor(options: OpenAIStreamWriterOptions) {
    this.#options = options;
  }

  write(part: ReplyPart): string {
    if (this.#closed) return '';
    if (part.type === 'start') {
      this.#id = openAICompletionId(part.id);
      this.#model = part.model;
      return this.#start();
    }
    if (part.type === 'error') {
      this.#closed = true;
      const error = { message: part.message, type: openAIErrorType(part.errorType), param: null, code: null };
      return `data: ${JSON.stringify({ error })}\n\n`;
    }
    if (part.type === 'usage') {
      this.#usage = part.usage;
      return '';
    }
    if (part.type === 'end') return this.#end();
    return this.#start() + this.#content(part);
  }

  #content(part: ReplyPart): string {
    switch (part.type) {
      case 'text-delta':
        return this.#chunk({ content: part.text });
      case 'reasoning-delta':
        return this.#chunk({ reasoning_content: part.text });
      case 'tool-call-start': {
        this.#calledTools = true;
        const call = {
          index: part.toolIndex,
          id: part.id,
          type: 'function',
          function: { name: part.name, arguments: '' },
        };
        return this.#chunk({ tool_calls: [call] });
      }
      case 'tool-call-delta':
        return this.#chunk({ tool_calls: [{ index: part.toolIndex, function: { arguments: part.arguments } }] });
      case 'finish':
        return this.#finish(openAIFinishReason(part.reason, this.#calledTools));
      default:
        return '';
    }
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    return this.#chunk({ role: 'assistant', content: '' });
  }

  #finish(reason: string): string {
    if (this.#finished) return '';
    this.#finished = true;
    return this.#chunk({}, reason);
  }

  #end(): string {
    this.#closed = true;
    let frames = this.#start() + this.#finish(this.#calledTools ? 'tool_calls' : 'stop');
    if (this.#options.includeUsage && this.#usage) {
      frames += this.#frame({ choices: [], usage: openAIUsage(this.#usage) });
    }
    return `${frames}data: [DONE]\n\n`;
  }

  #chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
    return this.#frame({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
  }

  #frame(fields: Record<string, unknown>): string {
    const chunk = { id: this.#id, object: 'chat.completion.chunk', created: this.#options.created, model: this.#model };
    return `data: ${JSON.stringify({ ...chunk, ...fields })}\n\n`;
  }
}
