/**
 * @module stores/cluster/redis-projection-writer
 * Applies events to the Redis lookups. Documents only move forward: a script stores a document only
 * if its event is newer (UUIDv7 ids order by time) than the one already applied, so the projector and
 * the write-through of the node that issued a command can both apply the same events, in any order,
 * any number of times. A key's usage (tokens, and spend per budget period, which its account's spend
 * hash gets too) is counted once per request, guarded by a marker set in the same script. Every change is published so gateway nodes reload it.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { documentModels } from '../../projector/read-models/document-models.ts';
import { periodStart, resettingPeriods } from '../../projector/read-models/spend/spend.ts';
import type { ChangeMessage, Redis, RedisKeys } from './redis-keys.ts';
import { RedisResponses } from './redis-responses.ts';

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

/**
 * A batch's usage in one script. KEYS: per request, its applied marker, its key's usage hash and its
 * account's spend hash; ARGV: per request, its tokens, its start time, its cost in nano-dollars and
 * the starts of its day, week and month (projector/read-models/spend); last, the marker TTL in
 * seconds. A period's counter restarts at a newer period and ignores an older one, as `addSpend`
 * does. Returns, per request, 1 when it was counted now and 0 when its marker said it already was.
 *
 * The requests counted now are summed in the script first, per usage hash and per spend hash and
 * periods, and each sum written once: a request costs its marker and a few table updates instead of
 * up to eighteen Redis commands, which made Redis the slowest part of a projector write. The sums
 * give what one request at a time gives: a counter ends at its newest period with the costs of that
 * period's requests, whatever their order.
 */
const countUsageScript = `
local ttl = ARGV[#ARGV]
local periods = {'daily', 'weekly', 'monthly'}
local function spend(key, cost, first)
  redis.call('HINCRBY', key, 'total:nano', cost)
  for p = 1, 3 do
    local start = ARGV[first + p - 1]
    local current = redis.call('HGET', key, periods[p] .. ':start')
    if (not current) or current < start then
      redis.call('HSET', key, periods[p] .. ':start', start, periods[p] .. ':nano', cost)
    elseif current == start then
      redis.call('HINCRBY', key, periods[p] .. ':nano', cost)
    end
  end
end
local used, usedOrder = {}, {}
local spent, spentOrder = {}, {}
local function addSpend(key, cost, first)
  local group = key .. '|' .. ARGV[first] .. '|' .. ARGV[first + 1] .. '|' .. ARGV[first + 2]
  local sum = spent[group]
  if sum then sum[2] = sum[2] + cost
  else
    spent[group] = {key, cost, first}
    spentOrder[#spentOrder + 1] = group
  end
end
local counted = {}
for i = 1, #KEYS, 3 do
  local n = (i + 2) / 3
  local a = 6 * (n - 1)
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ttl) then
    local key = KEYS[i + 1]
    local sum = used[key]
    if not sum then
      sum = {0, ''}
      used[key] = sum
      usedOrder[#usedOrder + 1] = key
    end
    sum[1] = sum[1] + tonumber(ARGV[a + 1])
    if ARGV[a + 2] > sum[2] then sum[2] = ARGV[a + 2] end
    local cost = tonumber(ARGV[a + 3])
    if cost > 0 then
      addSpend(key, cost, a + 4)
      addSpend(KEYS[i + 2], cost, a + 4)
    end
    counted[n] = 1
  else
    counted[n] = 0
  end
end
for _, key in ipairs(usedOrder) do
  local sum = used[key]
  redis.call('HINCRBY', key, 'used', string.format('%d', sum[1]))
  local last = redis.call('HGET', key, 'lastUsedAt')
  if (not last) or last < sum[2] then redis.call('HSET', key, 'lastUsedAt', sum[2]) end
end
for _, group in ipairs(spentOrder) do
  local sum = spent[group]
  spend(sum[1], string.format('%d', sum[2]), sum[3])
end
return counted`;

/** KEYS: usage hashes; ARGV: the latest request start of each. Returns 1 per hash it moved forward. */
const touchScript = `
local touched = {}
for i = 1, #KEYS do
  local last = redis.call('HGET', KEYS[i], 'lastUsedAt')
  if (not last) or last < ARGV[i] then
    redis.call('HSET', KEYS[i], 'lastUsedAt', ARGV[i])
    touched[i] = 1
  else
    touched[i] = 0
  end
end
return touched`;

/** Requests per usage script call: one call holds Redis for about a millisecond at most. */
const USAGE_CHUNK = 500;

const MARKER_TTL_SECONDS = 7 * 24 * 3600;

const DAY_MS = 86_400_000;

function secondaryKey(collection: string, document: Record<string, unknown> | null, keys: RedisKeys): string {
  if (!document) return '';
  if (collection === 'tokens') return keys.keyHash(String(document['keyHash']));
  if (collection === 'users') return keys.email(String(document['email']));
  return '';
}

export class RedisProjectionWriter {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #responses: RedisResponses;

  constructor(redis: Redis, keys: RedisKeys) {
    this.#redis = redis;
    this.#keys = keys;
    this.#responses = new RedisResponses(redis, keys.prefix);
  }

  /** Applies events in order; returns the changes it published. */
  async apply(events: readonly GatewayEvent[]): Promise<ChangeMessage[]> {
    const changes: ChangeMessage[] = [];
    // Stored responses are read from Redis by id, never from a node's replica: no change to publish.
    await this.#responses.apply(events);
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
        const written = next ? JSON.stringify({ ...next, _eventId: event.eventId }) : '';
        const applied = await this.#redis.eval(putDocumentScript, {
          keys: [
            key,
            this.#keys.index(collection),
            secondaryKey(collection, next, this.#keys),
            secondaryKey(collection, current, this.#keys),
          ],
          arguments: [written, event.eventId, id],
        });
        // With the document: a node applies it the moment the message arrives, with no read between.
        if (applied === 1) changes.push({ collection, id, ...(written && { document: written }) });
      }
    }
    const { changed, spentUsers } = await this.#applyUsage(events);
    for (const id of changed) changes.push({ collection: 'usage', id });
    for (const id of spentUsers) changes.push({ collection: 'user-spend', id });
    await this.publish(changes);
    return changes;
  }

  /**
   * A key's usage moves once per request (its marker) and its last use only forward, so the batch's
   * requests go to Redis together: a few script calls per batch instead of two per request. Returns
   * the keys whose usage changed.
   */
  async #applyUsage(events: readonly GatewayEvent[]): Promise<{ changed: Set<string>; spentUsers: Set<string> }> {
    const changed = new Set<string>();
    const spentUsers = new Set<string>();
    const usage = events.flatMap((event) => (event.type === 'usage.recorded' ? [event.body] : []));
    // Every period starts at a UTC midnight, so a batch's requests share a few days' starts: working
    // them out per request (three Date round trips) was 8% of the projector's CPU.
    const periodsOfDay = new Map<number, string[]>();
    const periodsOf = (startedAtMs: number) => {
      const day = Math.floor(startedAtMs / DAY_MS);
      let starts = periodsOfDay.get(day);
      if (!starts) {
        starts = resettingPeriods.map((period) => periodStart(period, startedAtMs));
        periodsOfDay.set(day, starts);
      }
      return starts;
    };
    const counted = await this.#scriptInChunks(
      countUsageScript,
      usage,
      (body) => [this.#keys.applied(body.requestId), this.#keys.usage(body.tokenId), this.#keys.userSpend(body.userId)],
      (body) => {
        const startedAtMs = Date.parse(body.startedAt);
        return [
          String(body.promptTokens + body.completionTokens),
          body.startedAt,
          String(body.costNanoUsd ?? 0),
          ...periodsOf(startedAtMs),
        ];
      },
      [String(MARKER_TTL_SECONDS)],
    );
    for (const body of counted) {
      changed.add(body.tokenId);
      if (body.costNanoUsd) spentUsers.add(body.userId);
    }
    // A request without tokens still marks its key as used: the latest start per key, once.
    const latest = new Map<string, string>();
    for (const event of events) {
      if (event.type !== 'request.completed' || !event.body.tokenId) continue;
      const previous = latest.get(event.body.tokenId);
      if (previous === undefined || previous < event.body.startedAt)
        latest.set(event.body.tokenId, event.body.startedAt);
    }
    const touched = await this.#scriptInChunks(
      touchScript,
      [...latest.keys()],
      (tokenId) => [this.#keys.usage(tokenId)],
      (tokenId) => [latest.get(tokenId)!],
    );
    for (const tokenId of touched) changed.add(tokenId);
    return { changed, spentUsers };
  }

  /**
   * Runs a per-item script over the items, USAGE_CHUNK per call (each item's keys and arguments in
   * turn, then `trailing`); returns the items the script answered 1 for.
   */
  async #scriptInChunks<Item>(
    script: string,
    items: readonly Item[],
    keysOf: (item: Item) => string[],
    argumentsOf: (item: Item) => string[],
    trailing: string[] = [],
  ): Promise<Item[]> {
    const chunks: Item[][] = [];
    for (let start = 0; start < items.length; start += USAGE_CHUNK)
      chunks.push(items.slice(start, start + USAGE_CHUNK));
    // Sent at once (the client pipelines them): Redis still runs one script at a time, but a large
    // batch no longer waits a round trip per chunk. The chunks are independent: each request's
    // marker is its own key, and usage sums and last-use times do not depend on the order.
    const results = await Promise.all(
      chunks.map(
        (chunk) =>
          this.#redis.eval(script, {
            keys: chunk.flatMap(keysOf),
            arguments: [...chunk.flatMap(argumentsOf), ...trailing],
          }) as Promise<number[]>,
      ),
    );
    const answered: Item[] = [];
    for (const [chunkIndex, chunk] of chunks.entries())
      for (const [index, item] of chunk.entries()) if (results[chunkIndex]![index] === 1) answered.push(item);
    return answered;
  }

  async publish(changes: readonly ChangeMessage[]): Promise<void> {
    // One message per batch keeps pub/sub traffic low under heavy usage.
    if (changes.length > 0) await this.#redis.publish(this.#keys.changes, JSON.stringify(changes));
  }
}
