/**
 * @module gateway/relay/response-state
 * The gateway's side of stored Responses: finding a key's own response by id (another account's id
 * is answered exactly like an unknown one), the chain of turns a `previous_response_id` continues,
 * and keeping or deleting a response as an event that is visible on every node when this resolves
 * (appended, then caught up: the cluster writes it through to Redis, as a new key is).
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { type StoredResponseDocument, visibleTo } from '../../projector/read-models/responses/evolve.ts';
import type { Stores } from '../../stores/ports.ts';
import { GatewayError } from './errors.ts';

/** Turns a continuation may reach back: an agent's longest tool loops stay well inside it. */
export const MAX_CHAIN_TURNS = 256;

export class ResponseState {
  readonly #stores: Pick<Stores, 'responses' | 'events' | 'sync'>;

  constructor(stores: Pick<Stores, 'responses' | 'events' | 'sync'>) {
    this.#stores = stores;
  }

  /** The response if `userId`'s keys may see it, else null (unknown, another account's, deleted, lapsed). */
  async find(responseId: string, userId: string): Promise<StoredResponseDocument | null> {
    const document = await this.#stores.responses.find(responseId);
    return visibleTo(document, userId, Date.now()) ? document : null;
  }

  /**
   * The turns up to and including `responseId`, oldest first. An earlier turn deleted or lapsed ends
   * the chain there: the conversation goes on from the turns still kept.
   */
  async chain(responseId: string, userId: string, param: string): Promise<StoredResponseDocument[]> {
    const head = await this.find(responseId, userId);
    if (!head) throw notFound(responseId, param);
    const turns = [head];
    const seen = new Set([responseId]);
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
      previous = turn.previousResponseId;
    }
    return turns.reverse();
  }

  /** Appends and waits until every node can read it. */
  async record(event: GatewayEvent): Promise<void> {
    await this.#stores.events.append([event]);
    await this.#stores.sync.caughtUp([event]);
  }
}

export function notFound(responseId: string, param: string): GatewayError {
  // The id is the caller's own text: shown back cut short, and never said to be someone else's.
  return new GatewayError('not_found', `No response with id '${responseId.slice(0, 100)}' was found.`, {
    param,
    code: 'response_not_found',
  });
}
