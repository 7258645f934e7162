/**
 * @module gateway/providers/bedrock/read-converse-stream
 * A ConverseStream as neutral reply parts, one event at a time. The relay decodes AWS's binary
 * event-stream framing (relay/aws-event-stream.ts) into events named by their `:event-type` (or, for
 * an exception, its `:exception-type`) with the JSON payload as data. The finish comes with
 * `messageStop` and the usage after it, in `metadata`, which ends the reply. Tool calls are numbered
 * by their own order, not by content block index (a text or reasoning block shifts the index).
 */
import type { ConverseStreamExceptionType } from '../../../contracts/bedrock/converse-stream.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import type { SseEvent } from '../provider.ts';
import { bedrockReplyId, finishReasonFromBedrock } from './stop-reason.ts';
import { tokenCountsFromBedrock } from './usage.ts';

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Bedrock's stream exceptions in the Anthropic vocabulary the neutral error part carries. */
const errorTypes: Record<ConverseStreamExceptionType, string> = {
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'overloaded_error',
  validationException: 'invalid_request_error',
  modelStreamErrorException: 'api_error',
  internalServerException: 'api_error',
};

interface OpenTool {
  toolIndex: number;
  sawArguments: boolean;
}

export class ConverseStreamReader {
  /** why the upstream's usage was not believed, when it was not */
  usageRefused: string | null = null;
  readonly #tools = new Map<number, OpenTool>();
  #nextToolIndex = 0;
  #started = false;

  read({ event, data }: SseEvent): ReplyPart[] {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      payload = {};
    }
    const body = isObject(payload) ? payload : {};
    if (event?.endsWith('Exception') || event === 'error') return [this.#error(event, body)];
    switch (event) {
      case 'messageStart':
        return this.#start();
      case 'contentBlockStart':
        return [...this.#start(), ...this.#blockStart(body)];
      case 'contentBlockDelta':
        return [...this.#start(), ...this.#blockDelta(body)];
      case 'contentBlockStop':
        return this.#blockStop(body);
      case 'messageStop':
        return [{ type: 'finish', reason: finishReasonFromBedrock(body['stopReason']), stopSequence: null }];
      case 'metadata': {
        const usage = tokenCountsFromBedrock(body['usage'], this);
        // A refused usage is left out: the relay then counts the tokens itself.
        return usage ? [{ type: 'usage', usage, estimated: false }, { type: 'end' }] : [{ type: 'end' }];
      }
      default:
        return [];
    }
  }

  /** The reply's start, once: Converse may begin with a block rather than messageStart. */
  #start(): ReplyPart[] {
    if (this.#started) return [];
    this.#started = true;
    return [{ type: 'start', id: bedrockReplyId(), model: '', usage: null }];
  }

  #blockStart(body: Loose): ReplyPart[] {
    const start = isObject(body['start']) ? body['start'] : {};
    if (!isObject(start['toolUse'])) return [];
    const { toolUseId, name } = start['toolUse'];
    const toolIndex = this.#nextToolIndex++;
    this.#tools.set(Number(body['contentBlockIndex']), { toolIndex, sawArguments: false });
    return [
      {
        type: 'tool-call-start',
        toolIndex,
        id: typeof toolUseId === 'string' ? toolUseId : '',
        name: typeof name === 'string' ? name : '',
      },
    ];
  }

  #blockDelta(body: Loose): ReplyPart[] {
    const delta = isObject(body['delta']) ? body['delta'] : {};
    if (typeof delta['text'] === 'string') return delta['text'] ? [{ type: 'text-delta', text: delta['text'] }] : [];
    if (isObject(delta['toolUse'])) {
      const tool = this.#tools.get(Number(body['contentBlockIndex']));
      const input = delta['toolUse']['input'];
      if (!tool || typeof input !== 'string' || input === '') return [];
      tool.sawArguments = true;
      return [{ type: 'tool-call-delta', toolIndex: tool.toolIndex, arguments: input }];
    }
    if (isObject(delta['reasoningContent'])) {
      const { text, signature } = delta['reasoningContent'];
      if (typeof text === 'string' && text) return [{ type: 'reasoning-delta', text }];
      if (typeof signature === 'string' && signature) return [{ type: 'reasoning-signature', signature }];
      // Redacted reasoning has no streamed counterpart in the client formats.
    }
    return [];
  }

  /** A tool that streamed no input still gets its arguments, so the client never sees empty text. */
  #blockStop(body: Loose): ReplyPart[] {
    const tool = this.#tools.get(Number(body['contentBlockIndex']));
    if (!tool || tool.sawArguments) return [];
    tool.sawArguments = true;
    return [{ type: 'tool-call-delta', toolIndex: tool.toolIndex, arguments: '{}' }];
  }

  #error(event: string, body: Loose): ReplyPart {
    const message = body['message'];
    return {
      type: 'error',
      errorType: (Object.hasOwn(errorTypes, event) && errorTypes[event as ConverseStreamExceptionType]) || 'api_error',
      message:
        typeof message === 'string' && message
          ? `The upstream provider reported ${event}: ${message}`
          : `The upstream provider reported ${event}.`,
    };
  }
}
