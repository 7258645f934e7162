/**
 * @module gateway/relay/response-keeper
 * Keeps each `/v1/responses` reply (unless the request said `store: false`) as a `response.stored`
 * event before the client's reply ends, so that the id the client just got can be fetched, deleted
 * or continued at once, through any node. A whole reply is kept before it is sent; a stream's final
 * event (`response.completed` or `response.incomplete`, which carries the whole response) is held
 * back until the response is kept, then written. Failed replies are not kept. Keeping never fails
 * the reply: a store that does not answer, a turn over the size limit, or one that would take the
 * account's stored responses over their limit (the reply is already made and billed: dropping it
 * would cost the client more than not keeping it) is logged and skipped, with a warning where the
 * reply can still carry one.
 *
 * A native channel's reply carries the upstream's id, and an upstream may reuse one (a proxy, a
 * self-hosted server) that the gateway already keeps, for this account or another. Kept under it,
 * the reply would be lost (the first turn kept under an id wins) while it says `store: true`. Such a
 * reply gets an id of the gateway's own instead, in the client's reply and in what is kept, and is
 * kept as not native, so that continuing it expands the conversation from the gateway's copy rather
 * than naming an id the upstream may hold someone else's conversation under.
 */
import type { EventOfType } from '../../contracts/events/index.ts';
import { log } from '../../platform/log.ts';
import { newEvent } from '../events/new-event.ts';
import { upstreamKinds } from '../providers/kinds.ts';
import type { SseEvent, StreamOutcome, StreamRelay } from '../providers/provider.ts';
import { failFrames, finishFrames, type StreamFailure } from '../providers/provider-extensions.ts';
import { inputItemsOf } from '../providers/responses/continuation.ts';
import { responseId as ownResponseId } from '../providers/responses/response-frame.ts';
import { channelSecrets } from '../security/scrub-secrets.ts';
import { scrubbedEvent } from '../security/scrubbed-event.ts';
import type { RelayCall, UpstreamExchange } from './relay-call.ts';

/** The largest stored turn (its event as JSON): a Kafka message holds 1 MiB, and Redis keeps it in memory. */
export const STORED_RESPONSE_LIMIT_BYTES = 512 * 1024;

type StoredEvent = EventOfType<'response.stored'>;
type LooseResponse = Record<string, unknown> & { id?: unknown; status?: unknown; output?: unknown };

/** The request is one whose reply is kept: it did not say `store: false`, and a key made it. */
function keepable(call: RelayCall, exchange: UpstreamExchange): boolean {
  return exchange.input.body['store'] !== false && Boolean(call.record.userId) && Boolean(call.record.tokenId);
}

/** How long a stream's frames may wait for the lookup of its id; past it the id stays as it is. */
const LOOKUP_TIMEOUT_MS = 1_000;

function isNative({ route: { channel } }: UpstreamExchange): boolean {
  return upstreamKinds[channel.type].capabilities.nativeResponses && channel.responsesApi === true;
}

/**
 * The gateway's own id for a native reply whose id is already kept, else null. A store that does not
 * answer, or not within LOOKUP_TIMEOUT_MS, leaves the id as it is: keeping then fails, or not, as it
 * would have.
 */
async function replacementId(call: RelayCall, exchange: UpstreamExchange, id: string): Promise<string | null> {
  const state = call.dependencies.responses;
  if (!state || !keepable(call, exchange) || !isNative(exchange)) return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), LOOKUP_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([state.taken(id), late])) ? ownResponseId(id) : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

const REPLACED =
  'response id replaced: the upstream answered with an id the gateway already keeps for another response; continue from the id in this reply';

function addWarning(call: RelayCall, warning: string): void {
  const previous = call.response.getHeader('x-gateway-warnings');
  call.response.setHeader('x-gateway-warnings', previous ? `${previous}; ${warning}` : warning);
}

function storedEvent(
  call: RelayCall,
  exchange: UpstreamExchange,
  reply: unknown,
  replaced: boolean,
): StoredEvent | null {
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
    // A replaced id is unknown upstream: a continuation expands the conversation instead of naming it.
    native: isNative(exchange) && !replaced,
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
async function keep(
  call: RelayCall,
  exchange: UpstreamExchange,
  reply: unknown,
  replaced = false,
): Promise<string | null> {
  const state = call.dependencies.responses;
  if (!state) return null;
  const event = storedEvent(call, exchange, reply, replaced);
  if (!event) return null;
  // What the upstream answered is not trusted: the channel's keys never reach the log. Nothing else is
  // taken out: a user's own credential-shaped text is their conversation, kept and sent back as written.
  const kept = scrubbedEvent(event, channelSecrets(exchange.route.channel));
  if (kept.bytes > STORED_RESPONSE_LIMIT_BYTES) {
    log.warn('response not stored: over the size limit', { requestId: call.record.requestId });
    return `response not stored: this turn is over the ${STORED_RESPONSE_LIMIT_BYTES / 1024} KiB a stored response may hold`;
  }
  try {
    if (!(await state.roomFor(event.body.userId, kept.bytes))) {
      log.warn('response not stored: the account is at its storage limit', { requestId: call.record.requestId });
      return `response not stored: this account's stored responses are at their limit of ${state.accountLimitBytes / 1024 / 1024} MiB (STORED_RESPONSES_ACCOUNT_LIMIT_BYTES); delete some with DELETE /v1/responses/{id} or send store: false`;
    }
    await state.record(kept.event);
    return null;
  } catch (error) {
    log.error('response not stored', { requestId: call.record.requestId, error: String(error) });
    return 'response not stored: the store did not answer';
  }
}

/** The final events of a Responses stream, found in what a relay writes, in either writer's spelling. */
const FINAL = /"type":\s*"response\.(completed|incomplete)"/;

/** The id `response.created` opens a stream with, if this event is it. */
function createdId({ event, data }: SseEvent): string | null {
  if (event !== undefined && event !== 'response.created') return null;
  if (event === undefined && !data.includes('response.created')) return null;
  try {
    const parsed = JSON.parse(data) as { type?: unknown; response?: { id?: unknown } };
    return parsed.type === 'response.created' && typeof parsed.response?.id === 'string' ? parsed.response.id : null;
  } catch {
    return null;
  }
}

/** Frames with `from` as their response's id given `to` instead; every other frame as it is. */
function renameFrames(frames: string, from: string, to: string): string {
  return frames
    .split('\n\n')
    .map((frame) => {
      if (!frame.includes(from)) return frame;
      const lines = frame.split('\n');
      const at = lines.findIndex((line) => line.startsWith('data:'));
      if (at < 0) return frame;
      try {
        const payload = JSON.parse(lines[at]!.slice('data:'.length)) as { response?: { id?: unknown } };
        if (payload.response?.id !== from) return frame;
        payload.response.id = to;
        lines[at] = `data: ${JSON.stringify(payload)}`;
        return lines.join('\n');
      } catch {
        return frame;
      }
    })
    .join('\n\n');
}

/**
 * A stream relay whose final event waits in `held` until `release`. With `replacement` (a native
 * reply), the frames from `response.created` on wait while the stream's id is looked up, a lookup
 * by id that ends before the next upstream event as a rule; when the id is already kept, every
 * lifecycle event names the gateway's id instead (clients check that a stream keeps one id).
 */
class HoldingRelay implements StreamRelay {
  readonly #inner: StreamRelay;
  readonly #replacement: ((id: string) => Promise<string | null>) | null;
  /** the lookup of the stream's id: not begun, under way, or done */
  #lookup: 'idle' | Promise<void> | 'done' = 'idle';
  #rename: { from: string; to: string } | null = null;
  /** frames written while the lookup is under way */
  #waiting = '';
  held = '';

  constructor(inner: StreamRelay, replacement: ((id: string) => Promise<string | null>) | null) {
    this.#inner = inner;
    this.#replacement = replacement;
  }

  get sawContent(): boolean {
    return this.#inner.sawContent;
  }

  get replaced(): boolean {
    return this.#rename !== null;
  }

  onEvent(event: SseEvent): string {
    const frames = this.#inner.onEvent(event);
    if (this.#lookup === 'idle' && this.#replacement) {
      const id = createdId(event);
      if (id !== null) {
        this.#lookup = this.#replacement(id).then((to) => {
          if (to !== null) this.#rename = { from: id, to };
          this.#lookup = 'done';
        });
      }
    }
    return this.#pass(frames);
  }

  finish(): string {
    return this.#pass(finishFrames(this.#inner));
  }

  /** A failed stream is not kept: a final event held so far is dropped for the failure's frames. */
  fail(failure: StreamFailure): string {
    this.held = '';
    const frames = failFrames(this.#inner, failure);
    if (!frames) return '';
    const text = this.#waiting + frames;
    this.#waiting = '';
    return this.#renamed(text);
  }

  outcome(): StreamOutcome {
    return this.#inner.outcome();
  }

  /** After the stream: waits for the lookup, and gives back what waited for it. */
  async settle(): Promise<string> {
    if (this.#lookup instanceof Promise) await this.#lookup;
    return this.#pass('');
  }

  #pass(frames: string): string {
    if (this.#lookup instanceof Promise) {
      this.#waiting += frames;
      return '';
    }
    const text = this.#waiting + frames;
    this.#waiting = '';
    return this.#split(this.#renamed(text));
  }

  #renamed(frames: string): string {
    return this.#rename && frames ? renameFrames(frames, this.#rename.from, this.#rename.to) : frames;
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
  /**
   * Before a whole reply is sent: keeps what the client receives. Resolves to the reply to send
   * instead when keeping changed it (an id of the gateway's own), else undefined.
   */
  buffered(call: RelayCall, exchange: UpstreamExchange, reply: unknown): Promise<unknown>;
  /** The stream relay whose final event waits for `release`. */
  hold(relay: StreamRelay, call: RelayCall, exchange: UpstreamExchange): StreamRelay;
  /** After the stream: keeps its final response, then gives back the held frames to write. */
  release(call: RelayCall, exchange: UpstreamExchange, relay: StreamRelay): Promise<string>;
}

export const responsesKeeper: ReplyKeeper = {
  async buffered(call, exchange, reply) {
    const id = (reply as LooseResponse | null)?.id;
    const replacement = typeof id === 'string' ? await replacementId(call, exchange, id) : null;
    const answered = replacement ? { ...(reply as LooseResponse), id: replacement } : reply;
    if (replacement) addWarning(call, REPLACED);
    const warning = await keep(call, exchange, answered, replacement !== null);
    if (warning) addWarning(call, warning);
    return replacement ? answered : undefined;
  },
  // A stream's headers are gone before its first event: its new id is said in its events alone.
  hold: (relay, call, exchange) => new HoldingRelay(relay, (id) => replacementId(call, exchange, id)),
  async release(call, exchange, relay) {
    const holding = relay as HoldingRelay;
    const waited = await holding.settle();
    const { held } = holding;
    if (held) await keep(call, exchange, heldResponse(held), holding.replaced);
    return waited + held;
  },
};
