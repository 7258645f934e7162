/**
 * @module stores/cluster/redis-responses
 * The stored-responses projection in the cluster: one Redis string per id (`response:<id>`, the
 * document as JSON) that expires when the response lapses (30 days, projector/read-models/responses).
 * Redis rather than ClickHouse: a response is read by id, right after it is written and from any
 * node (read-your-writes needs a store that answers a write at once, which ClickHouse's merged parts
 * and asynchronous deletes do not), it is deleted by id, and it must vanish on a date, which a key's
 * expiry does by itself. Its memory is bounded by the size limit of a stored turn and the retention.
 *
 * Both the projector and the node that stored or deleted a response (write-through) apply the same
 * events, in any order, any number of times: storing sets the key only if it is absent (the first
 * `response.stored` wins and a tombstone is never overwritten), deleting replaces the owner's document
 * by a tombstone in one script.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import * as responses from '../../projector/read-models/responses/evolve.ts';
import type { ResponseStore } from '../ports.ts';
import type { Redis } from './redis-keys.ts';

/** KEYS: the response; ARGV: the tombstone, its owner, its lapse time (ms). */
const deleteScript = `
local current = redis.call('GET', KEYS[1])
if current then
  local document = cjson.decode(current)
  if document['deleted'] or document['userId'] ~= ARGV[2] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3])
return 1`;

export class RedisResponses implements ResponseStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #key(responseId: string): string {
    return `${this.#prefix}response:${responseId}`;
  }

  async apply(events: readonly GatewayEvent[], now = Date.now()): Promise<void> {
    for (const event of events) {
      if (!responses.canHandle(event)) continue;
      const key = this.#key(responses.documentIdOf(event));
      // Evolved from nothing: what either event makes of an id the store does not hold yet.
      const document = responses.evolve(null, event);
      if (document.expiresAtMs <= now) continue;
      if (event.type === 'response.stored') {
        await this.#redis.set(key, JSON.stringify(document), { NX: true, PXAT: document.expiresAtMs });
      } else {
        await this.#redis.eval(deleteScript, {
          keys: [key],
          arguments: [JSON.stringify(document), document.userId, String(document.expiresAtMs)],
        });
      }
    }
  }

  async find(responseId: string): Promise<StoredResponseDocument | null> {
    const stored = await this.#redis.get(this.#key(responseId));
    return stored ? (JSON.parse(stored) as StoredResponseDocument) : null;
  }
}
