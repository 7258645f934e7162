/**
 * @module gateway/providers/gemini-ingress/write-generate-stream
 * Neutral reply parts as `:streamGenerateContent?alt=sse` events: each a partial
 * `GenerateContentResponse` with the same response id and model version, text and thoughts as they
 * arrive, a function call whole in one part (Gemini never splits one, so its streamed arguments are
 * held until it is complete), and the finish reason with the usage in the last event. Events are
 * separated by CRLF pairs, as Google's are. An error after the 200 is Google's error object as one
 * last event.
 */
import type { GeminiPart } from '../../../contracts/gemini/generate-content-request.ts';
import type { GeminiGenerateContentResponse } from '../../../contracts/gemini/generate-content-response.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import type { TokenCounts } from '../provider.ts';
import { googleStreamError } from './error-status.ts';
import { functionCallPart } from './write-generate-reply.ts';
import { geminiFinishReason, usageMetadata } from './write-usage.ts';

interface OpenCall {
  id: string;
  name: string;
  arguments: string;
}

export const geminiEvent = (payload: unknown) => `data: ${JSON.stringify(payload)}\r\n\r\n`;

export class GenerateStreamWriter {
  readonly #thoughts: boolean;
  #id = '';
  #model = '';
  readonly #calls = new Map<number, OpenCall>();
  #finishReason: string | null = null;
  #usage: TokenCounts | null = null;
  #closed = false;

  constructor(options: { includeThoughts: boolean }) {
    this.#thoughts = options.includeThoughts;
  }

  write(part: ReplyPart): string {
    if (this.#closed) return '';
    switch (part.type) {
      case 'start':
        this.#id = part.id;
        this.#model = part.model;
        if (part.usage) this.#usage = part.usage;
        return '';
      case 'text-delta':
        return this.#flushCalls() + this.#event([{ text: part.text }]);
      case 'reasoning-delta':
        return this.#thoughts ? this.#flushCalls() + this.#event([{ text: part.text, thought: true }]) : '';
      case 'reasoning-signature':
        return this.#thoughts ? this.#event([{ text: '', thought: true, thoughtSignature: part.signature }]) : '';
      case 'tool-call-start':
        this.#calls.set(part.toolIndex, { id: part.id, name: part.name, arguments: '' });
        return '';
      case 'tool-call-delta': {
        const call = this.#calls.get(part.toolIndex);
        if (call) call.arguments += part.arguments;
        return '';
      }
      case 'finish':
        this.#finishReason = geminiFinishReason(part.reason);
        return this.#flushCalls();
      case 'usage':
        this.#usage = part.usage;
        return '';
      case 'end':
        this.#closed = true;
        return this.#flushCalls() + this.#last();
      case 'error':
        this.#closed = true;
        return geminiEvent(googleStreamError(part.errorType, part.message));
    }
  }

  #flushCalls(): string {
    if (this.#calls.size === 0) return '';
    const parts = [...this.#calls.values()].map((call) => functionCallPart(call.id, call.name, call.arguments));
    this.#calls.clear();
    return this.#event(parts);
  }

  #last(): string {
    const response = this.#response([{ text: '' }], this.#finishReason ?? 'STOP');
    if (this.#usage) response.usageMetadata = usageMetadata(this.#usage);
    return geminiEvent(response);
  }

  #event(parts: GeminiPart[]): string {
    return geminiEvent(this.#response(parts));
  }

  #response(parts: GeminiPart[], finishReason?: string): GeminiGenerateContentResponse {
    return {
      candidates: [{ content: { role: 'model', parts }, ...(finishReason && { finishReason }), index: 0 }],
      modelVersion: this.#model,
      responseId: this.#id,
    };
  }
}
