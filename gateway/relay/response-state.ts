/**
 * @module gateway/relay/response-state
 * The gateway's side of stored Responses: finding a key's own response by id (another account's id
 * is answered exactly like an unknown one), the chain of turns a `previous_response_id` continues
 * (bounded in turns and in bytes, so that a client cannot make the gateway relay more than it could
 * have sent itself), and keeping or deleting a response as an event that is visible on every node when this resolves
 * (appended, then caught up: the cluster writes it through to Redis, as a new key is). Each account's
 * stored responses are bounded in bytes (STORED_RESPONSES_ACCOUNT_LIMIT_BYTES): `roomFor` before a
 * turn is kept, `checkRoom` before a request that asks for `store: true` is relayed.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { type StoredResponseDocument, visibleTo } from '../../projector/read-models/responses/evolve.ts';

export type { StoredResponseDocument };

import type { Stores } from '../../stores/ports.ts';
import { GatewayError } from './errors.ts';

/** Turns a continuation may reach back: an agent's longest tool loops stay well inside it. */
export const MAX_CHAIN_TURNS = 256;

/** The earlier turns a continuation relays, oldest first, and the size of their items as JSON. */
export interface Conversation {
  turns: StoredResponseDocument[];
  bytes: number;
}

export interface ResponseStateOptions {
  /** the most a continued conversation may weigh expanded (earlier turns and this request), in bytes */
  conversationLimitBytes?: number;
  /** the most an account's stored responses may weigh, in bytes (their documents as JSON); 0 is no limit */
  accountLimitBytes?: number;
  /** the clock a response's lapse is judged by */
  now?: () => number;
}

/**
 * The default conversation limit: twice the text of a million-token context (the longest a model
 * takes), and small enough that a few continuations at once stay well inside the process's memory.
 */
export const CONVERSATION_LIMIT_BYTES = 8 * 1024 * 1024;

/** The default account limit: some 500 long turns, a fraction of a small disk. */
export const ACCOUNT_LIMIT_BYTES = 256 * 1024 * 1024;

export class ResponseState {
  readonly #stores: Pick<Stores, 'responses' | 'events' | 'sync'>;
  readonly #now: () => number;
  /** the most a continued conversation may weigh expanded (earlier turns and this request), in bytes */
  readonly conversationLimitBytes: number;
  readonly accountLimitBytes: number;

  constructor(stores: Pick<Stores, 'responses' | 'events' | 'sync'>, options: ResponseStateOptions = {}) {
    this.#stores = stores;
    this.conversationLimitBytes = options.conversationLimitBytes ?? CONVERSATION_LIMIT_BYTES;
    this.accountLimitBytes = options.accountLimitBytes ?? ACCOUNT_LIMIT_BYTES;
    this.#now = options.now ?? Date.now;
  }

  /** The response if `userId`'s keys may see it, else null (unknown, another account's, deleted, lapsed). */
  async find(responseId: string, userId: string): Promise<StoredResponseDocument | null> {
    const document = await this.#stores.responses.find(responseId);
    return visibleTo(document, userId, this.#now()) ? document : null;
  }

  /** Whether `bytes` more fit in the account's stored responses. */
  async roomFor(userId: string, bytes: number): Promise<boolean> {
    const limit = this.accountLimitBytes;
    return limit === 0 || (await this.#stores.responses.storedBytes(userId)) + bytes <= limit;
  }

  /** Refuses a request that asks to be stored when even its own body would not fit. */
  async checkRoom(userId: string, bytes: number): Promise<void> {
    if (await this.roomFor(userId, bytes)) return;
    throw new GatewayError(
      'invalid_request',
      `This account's stored responses are at their limit of ${mebibytes(this.accountLimitBytes)} (STORED_RESPONSES_ACCOUNT_LIMIT_BYTES), so this response could not be kept. Delete responses you no longer need (DELETE /v1/responses/{id}), wait for them to lapse, or send store: false.`,
      { param: 'store', code: 'stored_responses_limit_reached' },
    );
  }

  /** The previous turn alone (a 404 as `chain`), and its weight with the request's, bounded like the chain's. */
  async last(
    responseId: string,
    userId: string,
    param: string,
    requestBytes = 0,
  ): Promise<{ turn: StoredResponseDocument; bytes: number }> {
    const turn = await this.find(responseId, userId);
    if (!turn) throw notFound(responseId, param);
    return { turn, bytes: this.#weigh(turn, requestBytes, param) };
  }

  /** Whether any response is kept under this id, whoever owns it (tombstones count). */
  async taken(responseId: string): Promise<boolean> {
    return (await this.#stores.responses.find(responseId)) !== null;
  }

  /**
   * The turns up to and including `responseId`, oldest first. An earlier turn deleted or lapsed ends
   * the chain there: the conversation goes on from the turns still kept. Refused once the turns and
   * `requestBytes` (the request that continues them) weigh more than the conversation limit: the walk
   * stops there, before the rest is read. `last`, when given, is the previous turn as `last` read it.
   */
  async chain(
    responseId: string,
    userId: string,
    param: string,
    requestBytes = 0,
    last?: { turn: StoredResponseDocument; bytes: number },
  ): Promise<Conversation> {
    const { turn: head, bytes: headBytes } = last ?? (await this.last(responseId, userId, param, requestBytes));
    const turns = [head];
    const seen = new Set([responseId]);
    let bytes = headBytes;
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
