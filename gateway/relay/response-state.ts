/**
 * @module gateway/relay/response-state
 * The gateway's side of stored Responses: finding a key's own response by id (another account's id
 * is answered exactly like an unknown one), the chain of turns a `previous_response_id` continues
 * (bounded in turns and in bytes, so that a client cannot make the gateway relay more than it could
 * have sent itself), and keeping or deleting a response as an event that is visible on every node when this resolves
 * (appended, then caught up: the cluster writes it through to Redis, as a new key is).
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { type StoredResponseDocument, visibleTo } from '../../projector/read-models/responses/evolve.ts';
import type { Stores } from '../../stores/ports.ts';
import { GatewayError } from './errors.ts';

/** Turns a continuation may reach back: an agent's longest tool loops stay well inside it. */
export const MAX_CHAIN_TURNS = 256;

/** The earlier turns a continuation relays, oldest first, and the size of their items as JSON. */
export interface Conversation {
  turns: StoredResponseDocument[];
  bytes: number;
}

export class ResponseState {
  readonly #stores: Pick<Stores, 'responses' | 'events' | 'sync'>;
  /** the most a continued conversation may weigh expanded (earlier turns and this request), in bytes */
  readonly conversationLimitBytes: number;

  constructor(
    stores: Pick<Stores, 'responses' | 'events' | 'sync'>,
    options: { conversationLimitBytes?: number } = {},
  ) {
    this.#stores = stores;
    this.conversationLimitBytes = options.conversationLimitBytes ?? 20 * 1024 * 1024;
  }

  /** The response if `userId`'s keys may see it, else null (unknown, another account's, deleted, lapsed). */
  async find(responseId: string, userId: string): Promise<StoredResponseDocument | null> {
    const document = await this.#stores.responses.find(responseId);
    return visibleTo(document, userId, Date.now()) ? document : null;
  }

  /** Whether any response is kept under this id, whoever owns it (tombstones count). */
  async taken(responseId: string): Promise<boolean> {
    return (await this.#stores.responses.find(responseId)) !== null;
  }

  /**
   * The turns up to and including `responseId`, oldest first. An earlier turn deleted or lapsed ends
   * the chain there: the conversation goes on from the turns still kept. Refused once the turns and
   * `requestBytes` (the request that continues them) weigh more than the conversation limit: the walk
   * stops there, before the rest is read.
   */
  async chain(responseId: string, userId: string, param: string, requestBytes = 0): Promise<Conversation> {
    const head = await this.find(responseId, userId);
    if (!head) throw notFound(responseId, param);
    const turns = [head];
    const seen = new Set([responseId]);
    let bytes = this.#weigh(head, requestBytes, param);
    let previous = head.previousResponseId;
    while (previous && !seen.has(previous)) {
      if (turns.length >= MAX_CHAIN_TURNS) {
        throw new GatewayError(
          'invalid_request',
          `The conversation of previous_response_id is longer than ${MAX_CHAIN_TURNS} turns. Start a new one with the turns that matter in input.`,
          { param },
        );
      }
      const turn = await this.find(previous, userId);
      if (!turn) break;
      seen.add(previous);
      turns.push(turn);
      bytes += this.#weigh(turn, requestBytes + bytes, param);
      previous = turn.previousResponseId;
    }
    return { turns: turns.reverse(), bytes };
  }

  /** A turn's items as JSON bytes, refused when they take the conversation over its limit. */
  #weigh(turn: StoredResponseDocument, before: number, param: string): number {
    const bytes =
      Buffer.byteLength(JSON.stringify(turn.inputItems)) + Buffer.byteLength(JSON.stringify(turn.outputItems));
    const limit = this.conversationLimitBytes;
    if (before + bytes > limit) {
      throw new GatewayError(
        'invalid_request',
        `The conversation of previous_response_id is over ${mebibytes(limit)} expanded (CONVERSATION_LIMIT_BYTES), the most the gateway relays. Start a new one with the turns that matter in input.`,
        { param, code: 'conversation_too_large' },
      );
    }
    return bytes;
  }

  /** Appends and waits until every node can read it. */
  async record(event: GatewayEvent): Promise<void> {
    await this.#stores.events.append([event]);
    await this.#stores.sync.caughtUp([event]);
  }
}

function mebibytes(bytes: number): string {
  return `${Number((bytes / 1024 / 1024).toFixed(2))} MiB`;
}

export function notFound(responseId: string, param: string): GatewayError {
  // The id is the caller's own text: shown back cut short, and never said to be someone else's.
  return new GatewayError('not_found', `No response with id '${responseId.slice(0, 100)}' was found.`, {
    param,
    code: 'response_not_found',
  });
}
