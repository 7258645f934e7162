/**
 * @module stores/cluster/redis-responses
 * The stored-responses projection in the cluster: one Redis string per id (`response:<id>`, the
 * document as JSON) that expires when the response lapses (STORED_RESPONSES_RETENTION_DAYS, 30 days
 * by default: projector/read-models/responses). Redis rather than ClickHouse: a response is read by
 * id, right after it is written and from any node (read-your-writes needs a store that answers a
 * write at once, which ClickHouse's merged parts and asynchronous deletes do not), it is deleted by
 * id, and it must vanish on a date, which a key's expiry does by itself. Its memory is bounded by the
 * size limit of a stored turn, each account's storage limit and the retention.
 *
 * What each account's live documents weigh is one hash per account (`response-bytes:<user>`): the
 * JSON bytes of its documents by the day they lapse on, so that a day's bytes drop out of the sum
 * when that day has passed, without a sweep. Storing adds to it, deleting takes the document's bytes
 * off again, in the same script as the document's own write.
 *
 * Both the projector and the node that stored or deleted a response (write-through) apply the same
 * events, in any order, any number of times: storing sets the key only if it is absent (the first
 * `response.stored` wins and a tombstone is never overwritten), and counts its bytes only then;
 * deleting replaces the owner's live document by a tombstone, and takes its bytes off, only once.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import * as responses from '../../projector/read-models/responses/evolve.ts';
import type { ResponseStore } from '../ports.ts';
import type { Redis } from './redis-keys.ts';

const DAY_MS = 86_400_000;

/**
 * KEYS: the response, the owner's bytes; ARGV: the document, its lapse time (ms), its bytes, its
 * lapse day, now (ms). The hash lives as long as its latest day.
 */
const storeScript = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[4], ARGV[3])
local lapse = (tonumber(ARGV[4]) + 1) * ${DAY_MS}
if redis.call('PTTL', KEYS[2]) < lapse - tonumber(ARGV[5]) then redis.call('PEXPIREAT', KEYS[2], lapse) end
return 1`;

/**
 * KEYS: the response, the owner's bytes; ARGV: the tombstone, its owner, its lapse time (ms). The
 * live document's bytes come off the day it would have lapsed on.
 */
const deleteScript = `
local current = redis.call('GET', KEYS[1])
if current then
  local document = cjson.decode(current)
  if document['deleted'] or document['userId'] ~= ARGV[2] then return 0 end
  local day = tostring(math.floor(document['expiresAtMs'] / ${DAY_MS}))
  if redis.call('HINCRBY', KEYS[2], day, -string.len(current)) <= 0 then redis.call('HDEL', KEYS[2], day) end
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3])
return 1`;

export class RedisResponses implements ResponseStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #retentionMs: number;

  constructor(redis: Redis, prefix: string, retentionMs = responses.RETENTION_MS) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#retentionMs = retentionMs;
  }

  #key(responseId: string): string {
    return `${this.#prefix}response:${responseId}`;
  }

  #bytesKey(userId: string): string {
    return `${this.#prefix}response-bytes:${userId}`;
  }

  async apply(events: readonly GatewayEvent[], now = Date.now()): Promise<void> {
    // Sent at once, in order on one connection, so Redis runs them as one at a time would: each
    // script is decided by its event alone, and a round trip per event held a rebuild of a log of
    // stored responses to a few thousand events a second.
    const scripts: Array<Promise<unknown>> = [];
    for (const event of events) {
      if (!responses.canHandle(event)) continue;
      const key = this.#key(responses.documentIdOf(event));
      const bytesKey = this.#bytesKey(event.body.userId);
      // Evolved from nothing: what either event makes of an id the store does not hold yet.
      const document = responses.evolve(null, event, this.#retentionMs);
      if (document.expiresAtMs <= now) continue;
      const text = JSON.stringify(document);
      if (event.type === 'response.stored') {
        const day = Math.floor(document.expiresAtMs / DAY_MS);
        scripts.push(
          this.#redis.eval(storeScript, {
            keys: [key, bytesKey],
            arguments: [text, String(document.expiresAtMs), String(Buffer.byteLength(text)), String(day), String(now)],
          }),
        );
      } else {
        scripts.push(
          this.#redis.eval(deleteScript, {
            keys: [key, bytesKey],
            arguments: [text, document.userId, String(document.expiresAtMs)],
          }),
        );
      }
    }
    await Promise.all(scripts);
  }

  async find(responseId: string): Promise<StoredResponseDocument | null> {
    const stored = await this.#redis.get(this.#key(responseId));
    return stored ? (JSON.parse(stored) as StoredResponseDocument) : null;
  }

  /**
   * The bytes of the days not yet over: the documents lapsing later today still count, a day at
   * most after the last of them lapsed. Days already over are dropped from the hash on the way.
   */
  async storedBytes(userId: string, now = Date.now()): Promise<number> {
    const days = await this.#redis.hGetAll(this.#bytesKey(userId));
    const today = Math.floor(now / DAY_MS);
    let total = 0;
    const over: string[] = [];
    for (const [day, bytes] of Object.entries(days)) {
      if (Number(day) < today) over.push(day);
      else total += Math.max(0, Number(bytes));
    }
    if (over.length > 0) await this.#redis.hDel(this.#bytesKey(userId), over);
    return total;
  }
}
