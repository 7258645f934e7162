/**
 * @module gateway/providers/conversion/read-anthropic-stream
 * An Anthropic event stream as neutral reply parts, one SSE event at a time. Tool calls are numbered
 * by their own order, not by block index (a text or thinking block before a tool shifts the block
 * index; pitfall 1). A tool block that streams no input still yields its arguments (`{}`, or the start
 * block's input), so the client never gets a call with empty argument text.
 */
import type { AnthropicUsage } from '../../../contracts/anthropic/messages-response.ts';
import { tokenCountsFromAnthropic } from '../anthropic/usage.ts';
import type { SseEvent } from '../provider.ts';
import { partsOfMalformedEvent } from './malformed-event.ts';
import { finishReasonFromAnthropic } from './map-stop-reason.ts';
import type { ReplyPart } from './reply.ts';

interface AnthropicEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: Partial<AnthropicUsage> };
  content_block?: { type?: string; text?: string; thinking?: string; id?: string; name?: string; input?: unknown };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    partial_json?: string;
    signature?: string;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage?: Partial<AnthropicUsage>;
  error?: { type?: string; message?: string };
}

interface OpenTool {
  toolIndex: number;
  startInput: unknown;
  sawArguments: boolean;
}

export class AnthropicStreamReader {
  /** why the upstream's usage was not believed, when it was not */
  usageRefused: string | null = null;
  #usage: Partial<AnthropicUsage> = {};
  readonly #tools = new Map<number, OpenTool>();
  #nextToolIndex = 0;

  read({ event, data }: SseEvent): ReplyPart[] {
    let parsed: AnthropicEvent;
    try {
      parsed = JSON.parse(data);
    } catch {
      return partsOfMalformedEvent(data);
    }
    switch (parsed.type ?? event) {
      case 'message_start':
        this.#usage = { ...parsed.message?.usage };
        return [
          {
            type: 'start',
            id: parsed.message?.id ?? '',
            model: parsed.message?.model ?? '',
            usage: tokenCountsFromAnthropic(this.#usage, this),
          },
        ];
      case 'content_block_start':
        return this.#blockStart(parsed.index ?? 0, parsed.content_block ?? {});
      case 'content_block_delta':
        return this.#blockDelta(parsed.index ?? 0, parsed.delta ?? {});
      case 'content_block_stop':
        return this.#blockStop(parsed.index ?? 0);
      case 'message_delta': {
        // message_delta usage is cumulative; null fields mean "unchanged".
        for (const [field, value] of Object.entries(parsed.usage ?? {})) {
          if (value !== null && value !== undefined) (this.#usage as Record<string, unknown>)[field] = value;
        }
        const usage = tokenCountsFromAnthropic(this.#usage, this);
        const finish: ReplyPart = {
          type: 'finish',
          reason: finishReasonFromAnthropic(parsed.delta?.stop_reason),
          stopSequence: parsed.delta?.stop_sequence ?? null,
        };
        // A refused usage is left out: the relay then counts the tokens itself.
        return usage ? [finish, { type: 'usage', usage, estimated: false }] : [finish];
      }
      case 'message_stop':
        return [{ type: 'end' }];
      case 'error':
        return [
          {
            type: 'error',
            errorType: parsed.error?.type ?? 'api_error',
            message: parsed.error?.message ?? 'The upstream provider reported an error.',
          },
        ];
      default:
        // ping, and event types Anthropic may add later: nothing for the client.
        return [];
    }
  }

  #blockStart(index: number, block: NonNullable<AnthropicEvent['content_block']>): ReplyPart[] {
    switch (block.type) {
      case 'text':
        return block.text ? [{ type: 'text-delta', text: block.text }] : [];
      case 'thinking':
        return block.thinking ? [{ type: 'reasoning-delta', text: block.thinking }] : [];
      case 'tool_use': {
        const toolIndex = this.#nextToolIndex++;
        this.#tools.set(index, { toolIndex, startInput: block.input, sawArguments: false });
        return [{ type: 'tool-call-start', toolIndex, id: block.id ?? '', name: block.name ?? '' }];
      }
      default:
        return [];
    }
  }

  #blockDelta(index: number, delta: NonNullable<AnthropicEvent['delta']>): ReplyPart[] {
    switch (delta.type) {
      case 'text_delta':
        return delta.text ? [{ type: 'text-delta', text: delta.text }] : [];
      case 'thinking_delta':
        return delta.thinking ? [{ type: 'reasoning-delta', text: delta.thinking }] : [];
      case 'input_json_delta': {
        const tool = this.#tools.get(index);
        if (!tool || !delta.partial_json) return [];
        tool.sawArguments = true;
        return [{ type: 'tool-call-delta', toolIndex: tool.toolIndex, arguments: delta.partial_json }];
      }
      case 'signature_delta':
        // Only a writer that can hand the signature back (Responses' encrypted_content) uses it.
        return typeof delta.signature === 'string' && delta.signature
          ? [{ type: 'reasoning-signature', signature: delta.signature }]
          : [];
      default:
        // citations_delta has no place in the other formats.
        return [];
    }
  }

  #blockStop(index: number): ReplyPart[] {
    const tool = this.#tools.get(index);
    if (!tool || tool.sawArguments) return [];
    const input = tool.startInput && typeof tool.startInput === 'object' ? tool.startInput : {};
    return [{ type: 'tool-call-delta', toolIndex: tool.toolIndex, arguments: JSON.stringify(input) }];
  }
}
