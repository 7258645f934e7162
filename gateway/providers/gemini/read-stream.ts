/**
 * @module gateway/providers/gemini/read-stream
 * A `:streamGenerateContent?alt=sse` stream as neutral reply parts, one `data:` event (a partial
 * `GenerateContentResponse`) at a time. Each event carries the usage so far; the last one, with the
 * finish reason, holds the whole request's, and is the one reported. A function call arrives whole
 * in one part: its arguments are one delta. A signature is passed on once per thinking run (a
 * streamed reasoning item holds one): the run's own (`gemini:`), else that of the part after it
 * (`gemini-next:`). An `error` object in the stream is Google's error after the 200.
 */
import type { GeminiPart } from '../../../contracts/gemini/generate-content-request.ts';
import type {
  GeminiGenerateContentResponse,
  GeminiUsageMetadata,
} from '../../../contracts/gemini/generate-content-response.ts';
import { partsOfMalformedEvent } from '../conversion/malformed-event.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import type { SseEvent } from '../provider.ts';
import { errorTypeOfGeminiStatus } from './error-type.ts';
import { finishReasonFromGemini } from './finish-reason.ts';
import { callId } from './read-reply.ts';
import { nextPartSignature, thoughtSignature } from './thought-signature.ts';
import { tokenCountsFromGemini } from './usage.ts';

type StreamEvent = Partial<GeminiGenerateContentResponse> & {
  error?: { code?: unknown; message?: unknown; status?: unknown };
};

export class GeminiStreamReader {
  /** why the upstream's usage was not believed, when it was not */
  usageRefused: string | null = null;
  #started = false;
  #id = '';
  #tools = 0;
  #finished = false;
  #usage: GeminiUsageMetadata | undefined;
  /** a thinking run is open (thought text streamed since the last other part), and whether it is signed */
  #run: 'none' | 'unsigned' | 'signed' = 'none';

  read({ data }: SseEvent): ReplyPart[] {
    let event: StreamEvent;
    try {
      event = JSON.parse(data);
    } catch {
      return partsOfMalformedEvent(data);
    }
    if (typeof event !== 'object' || event === null) return [];
    if (event.error) return [this.#error(event.error)];
    const parts: ReplyPart[] = [];
    if (!this.#started) {
      this.#started = true;
      this.#id = typeof event.responseId === 'string' ? event.responseId : '';
      const model = typeof event.modelVersion === 'string' ? event.modelVersion : '';
      parts.push({ type: 'start', id: this.#id, model, usage: null });
    }
    const candidate = event.candidates?.[0];
    const content = Array.isArray(candidate?.content?.parts) ? candidate.content.parts : [];
    for (const part of content) parts.push(...this.#part(part));
    if (event.usageMetadata) this.#usage = event.usageMetadata;
    const blocked = !candidate && event.promptFeedback?.blockReason !== undefined;
    if (!this.#finished && (candidate?.finishReason || blocked)) {
      this.#finished = true;
      const reason = blocked ? 'content-filter' : finishReasonFromGemini(candidate?.finishReason, this.#tools > 0);
      parts.push({ type: 'finish', reason, stopSequence: null });
    }
    if (this.#finished && event.usageMetadata) {
      // A refused usage is left out: the relay then counts the tokens itself.
      const usage = tokenCountsFromGemini(this.#usage, this);
      if (usage) parts.push({ type: 'usage', usage, estimated: false });
    }
    return parts;
  }

  #part(part: GeminiPart): ReplyPart[] {
    if (typeof part !== 'object' || part === null) return [];
    const parts: ReplyPart[] = [];
    const text = typeof part.text === 'string' ? part.text : '';
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : '';
    if (part.thought === true) {
      if (text) parts.push({ type: 'reasoning-delta', text });
      if (this.#run === 'none' && text) this.#run = 'unsigned';
      if (signature && this.#run === 'unsigned') {
        parts.push({ type: 'reasoning-signature', signature: thoughtSignature(signature) });
        this.#run = 'signed';
      }
      return parts;
    }
    if (signature && this.#run === 'unsigned') {
      parts.push({ type: 'reasoning-signature', signature: nextPartSignature(signature) });
      this.#run = 'signed';
    }
    if (part.functionCall && typeof part.functionCall === 'object') {
      this.#run = 'none';
      const call = part.functionCall;
      const toolIndex = this.#tools++;
      const id = typeof call.id === 'string' && call.id ? call.id : callId(this.#id, toolIndex);
      const name = typeof call.name === 'string' ? call.name : '';
      parts.push({ type: 'tool-call-start', toolIndex, id, name });
      parts.push({ type: 'tool-call-delta', toolIndex, arguments: JSON.stringify(call.args ?? {}) });
    } else if (text) {
      this.#run = 'none';
      parts.push({ type: 'text-delta', text });
    }
    return parts;
  }

  #error(error: NonNullable<StreamEvent['error']>): ReplyPart {
    return {
      type: 'error',
      errorType: errorTypeOfGeminiStatus(typeof error.status === 'string' ? error.status : ''),
      message: typeof error.message === 'string' ? error.message : 'The upstream provider reported an error.',
    };
  }
}
