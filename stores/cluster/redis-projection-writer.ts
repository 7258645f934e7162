/**
 * @module stores/cluster/redis-projection-writer
 * Applies events to the Redis lookups. Documents only move forward: a script stores a document only
 * if its event is newer (UUIDv7 ids order by time) than the one already applied, so the projector and
 * the write-through of the node that issued a command can both apply the same events, in any order,
 * any number of times. A key's usage is counted once per request, guarded by a marker set in the same
 * script. Every change is published so gateway nodes reload it.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { documentModels } from '../../projector/read-models/document-models.ts';
import type { ChangeMessage, Redis, RedisKeys } from './redis-keys.ts';

/** KEYS: document, index, secondary index key (or ''), old secondary key (or ''); ARGV: json, eventId, id */
const putDocumentScript = `
local current = redis.call('GET', KEYS[1])
if current then
  local applied = cjson.decode(current)['_eventId']
  if applied and applied >= ARGV[2] then return 0 end
end
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[2], ARGV[3])
end
if KEYS[4] ~= '' and KEYS[4] ~= KEYS[3] then redis.call('DEL', KEYS[4]) end
if KEYS[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3]) end
return 1`;

/** KEYS: applied marker, usage hash; ARGV: tokens, time, marker ttl seconds */
const countUsageScript = `
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) then
  redis.call('HINCRBY', KEYS[2], 'used', ARGV[1])
  local last = redis.call('HGET', KEYS[2], 'lastUsedAt')
  if (not last) or last < ARGV[2] then redis.call('HSET', KEYS[2], 'lastUsedAt', ARGV[2]) end
  return 1
end
return 0`;

/** KEYS: usage hash; ARGV: time */
const touchScript = `
local last = redis.call('HGET', KEYS[1], 'lastUsedAt')
if (not last) or last < ARGV[1] then redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[1]) return 1 end
return 0`;

const MARKER_TTL_SECONDS = 7 * 24 * 3600;

function secondaryKey(collection: string, document: Record<string, unknown> | null, keys: RedisKeys): string {
  if (!document) return '';
  if (collection === 'tokens') return keys.keyHash(String(document['keyHash']));
  if (collection === 'users') return keys.email(String(document['email']));
  return '';
}

export class RedisProjectionWriter {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;

  constructor(redis: Redis, keys: RedisKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** Applies events in order; returns the changes it published. */
  async apply(events: readonly GatewayEvent[]): Promise<ChangeMessage[]> {
    const changes: ChangeMessage[] = [];
    for (const event of events) {
      for (const model of documentModels) {
        if (!model.canHandle(event)) continue;
        const collection = model.collection as ChangeMessage['collection'];
        const id = model.documentIdOf(event);
        const key = this.#keys.document(collection, id);
        const stored = await this.#redis.get(key);
        const current = stored ? (JSON.parse(stored) as Record<string, unknown>) : null;
        if (current && String(current['_eventId']) >= event.eventId) continue;
        const next = model.evolve(current, event) as Record<string, unknown> | null;
        const applied = await this.#redis.eval(putDocumentScript, {
          keys: [
            key,
            this.#keys.index(collection),
            secondaryKey(collection, next, this.#keys),
            secondaryKey(collection, current, this.#keys),
          ],
          arguments: [next ? JSON.stringify({ ...next, _eventId: event.eventId }) : '', event.eventId, id],
        });
        if (applied === 1) changes.push({ collection, id });
      }
    }
    // Usage counters are independent per request: issued together, node-redis pipelines them.
    const usageChanges = await Promise.all(events.map((event) => this.#applyUsage(event)));
    const tokens = new Set(usageChanges.filter((change) => change !== null).map((change) => change.id));
    for (const id of tokens) changes.push({ collection: 'usage', id });
    await this.publish(changes);
    return changes;
  }

  async #applyUsage(event: GatewayEvent): Promise<ChangeMessage | null> {
    if (event.type === 'usage.recorded') {
      const { requestId, tokenId, promptTokens, completionTokens, startedAt } = event.body;
      const counted = await this.#redis.eval(countUsageScript, {
        keys: [this.#keys.applied(requestId), this.#keys.usage(tokenId)],
        arguments: [String(promptTokens + completionTokens), startedAt, String(MARKER_TTL_SECONDS)],
      });
      return counted === 1 ? { collection: 'usage', id: tokenId } : null;
    }
    if (event.type === 'request.completed' && event.body.tokenId) {
      const touched = await this.#redis.eval(touchScript, {
        keys: [this.#keys.usage(event.body.tokenId)],
        arguments: [event.body.startedAt],
      });
      return touched === 1 ? { collection: 'usage', id: event.body.tokenId } : null;
    }
    return null;
  }

  async publish(changes: readonly ChangeMessage[]): Promise<void> {
    // One message per batch keeps pub/sub traffic low under heavy usage.
    if (changes.length > 0) await this.#redis.publish(this.#keys.changes, JSON.stringify(changes));
  }
}
