/**
 * @module gateway/relay/response-keeper
 * Keeps each `/v1/responses` reply (unless the request said `store: false`) as a `response.stored`
 * event before the client's reply ends, so that the id the client just got can be fetched, deleted
 * or continued at once, through any node. A whole reply is kept before it is sent; a stream's final
 * event (`response.completed` or `response.incomplete`, which carries the whole response) is held
 * back until the response is kept, then written. Failed replies are not kept. Keeping never fails
 * the reply: a store that does not answer, or a turn over the size limit, is logged and skipped.
 */
import type { EventOfType } from '../../contracts/events/index.ts';
import { log } from '../../platform/log.ts';
import { newEvent } from '../events/new-event.ts';
import { upstreamKinds } from '../providers/kinds.ts';
import type { SseEvent, StreamOutcome, StreamRelay } from '../providers/provider.ts';
import { failFrames, finishFrames, type StreamFailure } from '../providers/provider-extensions.ts';
import { inputItemsOf } from '../providers/responses/continuation.ts';
import { channelSecrets, scrubJsonText, scrubKnownSecrets } from '../security/scrub-secrets.ts';
import type { RelayCall, UpstreamExchange } from './relay-call.ts';

/** The largest stored turn (its event as JSON): a Kafka message holds 1 MiB, and Redis keeps it in memory. */
export const STORED_RESPONSE_LIMIT_BYTES = 512 * 1024;

type StoredEvent = EventOfType<'response.stored'>;
type LooseResponse = Record<string, unknown> & { id?: unknown; status?: unknown; output?: unknown };

function storedEvent(call: RelayCall, exchange: UpstreamExchange, reply: unknown): StoredEvent | null {
  const body = exchange.input.body;
  const { record } = call;
  if (body['store'] === false || !record.userId || !record.tokenId) return null;
  if (typeof reply !== 'object' || reply === null) return null;
  const { output, output_text: _text, ...settings } = reply as LooseResponse;
  const { id, status } = settings;
  if (typeof id !== 'string' || (status !== 'completed' && status !== 'incomplete') || !Array.isArray(output)) {
    return null;
  }
  const { channel } = exchange.route;
  const usage = settings['usage'] as { input_tokens?: unknown; output_tokens?: unknown } | null | undefined;
  const tokens = (value: unknown) => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0);
  return newEvent('response.stored', {
    responseId: id,
    userId: record.userId,
    tokenId: record.tokenId,
    requestId: record.requestId,
    previousResponseId: typeof body['previous_response_id'] === 'string' ? body['previous_response_id'] : null,
    channelId: channel.channelId,
    channelType: channel.type,
    native: upstreamKinds[channel.type].capabilities.nativeResponses && channel.responsesApi === true,
    model: typeof settings['model'] === 'string' ? settings['model'] : (record.modelServed ?? ''),
    status,
    createdAt: Number.isSafeInteger(settings['created_at']) ? (settings['created_at'] as number) : 0,
    usage: usage ? { inputTokens: tokens(usage.input_tokens), outputTokens: tokens(usage.output_tokens) } : null,
    inputItems: inputItemsOf(body['input']),
    outputItems: output as Record<string, unknown>[],
    settings,
  });
}

/** Keeps the reply; resolves to a warning for the client when it was not kept, else null. */
async function keep(call: RelayCall, exchange: UpstreamExchange, reply: unknown): Promise<string | null> {
  const state = call.dependencies.responses;
  if (!state) return null;
  const event = storedEvent(call, exchange, reply);
  if (!event) return null;
  // What the upstream answered is not trusted: the channel's keys never reach the log. Nothing else is
  // taken out: a user's own credential-shaped text is their conversation, kept and sent back as written.
  const text = scrubJsonText(JSON.stringify(event), channelSecrets(exchange.route.channel), scrubKnownSecrets);
  if (Buffer.byteLength(text) > STORED_RESPONSE_LIMIT_BYTES) {
    log.warn('response not stored: over the size limit', { requestId: call.record.requestId });
    return `response not stored: this turn is over the ${STORED_RESPONSE_LIMIT_BYTES / 1024} KiB a stored response may hold`;
  }
  try {
    await state.record(JSON.parse(text) as StoredEvent);
    return null;
  } catch (error) {
    log.error('response not stored', { requestId: call.record.requestId, error: String(error) });
    return 'response not stored: the store did not answer';
  }
}

/** The final events of a Responses stream, found in what a relay writes, in either writer's spelling. */
const FINAL = /"type":\s*"response\.(completed|incomplete)"/;

/** A stream relay whose final event waits in `held` until `release`. */
class HoldingRelay implements StreamRelay {
  readonly #inner: StreamRelay;
  held = '';

  constructor(inner: StreamRelay) {
    this.#inner = inner;
  }

  get sawContent(): boolean {
    return this.#inner.sawContent;
  }

  onEvent(event: SseEvent): string {
    return this.#split(this.#inner.onEvent(event));
  }

  finish(): string {
    return this.#split(finishFrames(this.#inner));
  }

  /** A failed stream is not kept: a final event held so far is dropped for the failure's frames. */
  fail(failure: StreamFailure): string {
    this.held = '';
    return failFrames(this.#inner, failure);
  }

  outcome(): StreamOutcome {
    return this.#inner.outcome();
  }

  #split(frames: string): string {
    if (this.held || frames === '') return frames;
    const match = FINAL.exec(frames);
    if (!match) return frames;
    const start = frames.lastIndexOf('\n\n', match.index) + 2;
    const at = start < 2 ? 0 : start;
    this.held = frames.slice(at);
    return frames.slice(0, at);
  }
}

/** The response object in a held final event's `data:` line. */
function heldResponse(frames: string): unknown {
  const data = frames.split('\n').find((line) => line.startsWith('data:'));
  if (!data) return null;
  try {
    return (JSON.parse(data.slice('data:'.length)) as { response?: unknown }).response ?? null;
  } catch {
    return null;
  }
}

export interface ReplyKeeper {
  /** Before a whole reply is sent: keeps what the client receives. */
  buffered(call: RelayCall, exchange: UpstreamExchange, reply: unknown): Promise<void>;
  /** The stream relay whose final event waits for `release`. */
  hold(relay: StreamRelay): StreamRelay;
  /** After the stream: keeps its final response, then gives back the held frames to write. */
  release(call: RelayCall, exchange: UpstreamExchange, relay: StreamRelay): Promise<string>;
}

export const responsesKeeper: ReplyKeeper = {
  async buffered(call, exchange, reply) {
    const warning = await keep(call, exchange, reply);
    if (warning) {
      const previous = call.response.getHeader('x-gateway-warnings');
      call.response.setHeader('x-gateway-warnings', previous ? `${previous}; ${warning}` : warning);
    }
  },
  hold: (relay) => new HoldingRelay(relay),
  async release(call, exchange, relay) {
    const { held } = relay as HoldingRelay;
    if (held) await keep(call, exchange, heldResponse(held));
    return held;
  },
};
