/**
 * @module stores/cluster/redis-projection-writer
 * Applies events to the Redis lookups. Documents only move forward: a script stores a document only
 * if its event is newer (UUIDv7 ids order by time) than the one already applied, so the projector and
 * the write-through of the node that issued a command can both apply the same events, in any order,
 * any number of times. A key's usage (tokens, and spend per budget period, which its account's spend
 * hash gets too) is counted once per log position: only from the log (the projector), each request
 * past its partition's usage offset, which moves in the same script (redis-projection-scripts.ts).
 * That a request is in the log at one position only is the outbox's part (outbox-doubt.ts). Every
 * change is published so gateway nodes reload it.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { documentModels } from '../../projector/read-models/document-models.ts';
import { periodStart, resettingPeriods } from '../../projector/read-models/spend/spend.ts';
import type { ChangeMessage, Redis, RedisKeys } from './redis-keys.ts';
import { countUsageScript, putDocumentScript, touchScript } from './redis-projection-scripts.ts';
import { RedisResponses } from './redis-responses.ts';

/** Requests per usage script call: one call holds Redis for about a millisecond at most. */
const USAGE_CHUNK = 500;

const DAY_MS = 86_400_000;

function secondaryKey(collection: string, document: Record<string, unknown> | null, keys: RedisKeys): string {
  if (!document) return '';
  if (collection === 'tokens') return keys.keyHash(String(document['keyHash']));
  if (collection === 'users') return keys.email(String(document['email']));
  return '';
}

/** Where a batch's events are in the log: its topic and partition, and each event's position. */
export interface LogPlace {
  topic: string;
  partition: number;
  /** per event, its logPosition */
  positions: readonly string[];
}

/**
 * An event's place in its partition as the usage script compares it: its message's offset and its
 * index among the message's facts (a message carries several events, and a request its usage as a
 * fact of its own), fixed-width so that comparing the strings compares the places.
 */
export function logPosition(offset: string, index: number): string {
  return `${offset.padStart(20, '0')}.${String(index).padStart(6, '0')}`;
}

/**
 * What a batch of events does to Redis, made when the projector reads the batch: the events that are
 * not traffic as they are, and of the traffic only the keys and arguments of the usage scripts. The
 * projector holds batches until their write (up to a second under live traffic, a whole write over a
 * backlog), and holding every parsed traffic event that long made the garbage collector a quarter of
 * its CPU (docs/performance.md, "The projector's garbage").
 */
export interface RedisBatch {
  /** the events that are not traffic (documents, stored responses), in order */
  others: GatewayEvent[];
  /** per request with usage: its partition's usage offset, usage hash and spend hash keys (USAGE_KEYS each) */
  usageKeys: string[];
  /** per request with usage: its log position (logPosition) */
  usagePositions: string[];
  /** per request with usage: the usage script's arguments but its positions (USAGE_ARGUMENTS each) */
  usageArguments: string[];
  /** per request with usage: its token id, its user id, and whether it cost anything */
  usageTokens: string[];
  usageUsers: string[];
  usageSpent: boolean[];
  /** the latest start of a request of the batch, by the key (token id) it used */
  latest: Map<string, string>;
}

/** The value of `key` in `map`, made and kept on first use. */
function cached<Key, Value>(map: Map<Key, Value>, key: Key, make: () => Value): Value {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

const USAGE_KEYS = 3;
const USAGE_ARGUMENTS = 6;

export class RedisProjectionWriter {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #responses: RedisResponses;

  /** @param responseRetentionMs how long a stored response is kept (STORED_RESPONSES_RETENTION_DAYS) */
  constructor(redis: Redis, keys: RedisKeys, responseRetentionMs?: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#responses = new RedisResponses(redis, keys.prefix, responseRetentionMs);
  }

  /** Applies events in order; returns the changes it published. Usage needs its place in the log. */
  async apply(events: readonly GatewayEvent[], place?: LogPlace): Promise<ChangeMessage[]> {
    return this.applyBatches([this.batchOf(events, place)]);
  }

  /**
   * What `events` do to Redis, for `applyBatches`. Usage is counted only from the log, by position:
   * usage without its `place` is refused (a node's write-through applies commands, never traffic).
   */
  batchOf(events: readonly GatewayEvent[], place?: LogPlace): RedisBatch {
    const batch: RedisBatch = {
      others: [],
      usageKeys: [],
      usagePositions: [],
      usageArguments: [],
      usageTokens: [],
      usageUsers: [],
      usageSpent: [],
      latest: new Map(),
    };
    // A batch's requests share a few keys and users, and every period starts at a UTC midnight, so
    // they share a few days' starts: one string each (working the starts out per request, three Date
    // round trips, was 8% of the projector's CPU).
    const usageKeyOf = new Map<string, string>();
    const spendKeyOf = new Map<string, string>();
    const periodsOfDay = new Map<number, string[]>();
    const offsetKey = place ? this.#keys.usageOffset(place.topic, place.partition) : '';
    for (const [index, event] of events.entries()) {
      if (event.type === 'request.completed') {
        const { tokenId, startedAt } = event.body;
        // A request without tokens still marks its key as used: the latest start per key, once.
        if (!tokenId) continue;
        const previous = batch.latest.get(tokenId);
        if (previous === undefined || previous < startedAt) batch.latest.set(tokenId, startedAt);
        continue;
      }
      if (event.type !== 'usage.recorded') {
        batch.others.push(event);
        continue;
      }
      if (!place)
        throw new Error('usage is counted only from the log: its place (topic, partition, position) is missing');
      const body = event.body;
      const usageKey = cached(usageKeyOf, body.tokenId, () => this.#keys.usage(body.tokenId));
      const spendKey = cached(spendKeyOf, body.userId, () => this.#keys.userSpend(body.userId));
      const startedAtMs = Date.parse(body.startedAt);
      const starts = cached(periodsOfDay, Math.floor(startedAtMs / DAY_MS), () =>
        resettingPeriods.map((period) => periodStart(period, startedAtMs)),
      );
      batch.usageKeys.push(offsetKey, usageKey, spendKey);
      batch.usagePositions.push(place.positions[index]!);
      batch.usageArguments.push(
        String(body.promptTokens + body.completionTokens),
        body.startedAt,
        String(body.costNanoUsd ?? 0),
        starts[0]!,
        starts[1]!,
        starts[2]!,
      );
      batch.usageTokens.push(body.tokenId);
      batch.usageUsers.push(body.userId);
      batch.usageSpent.push(Boolean(body.costNanoUsd));
    }
    return batch;
  }

  /** Applies batches (batchOf) in order; returns the changes it published. */
  async applyBatches(batches: readonly RedisBatch[]): Promise<ChangeMessage[]> {
    const changes: ChangeMessage[] = [];
    const others = ([] as GatewayEvent[]).concat(...batches.map((batch) => batch.others));
    // Stored responses are read from Redis by id, never from a node's replica: no change to publish.
    await this.#responses.apply(others);
    for (const change of await this.#applyDocuments(others)) changes.push(change);
    const { changed, spentUsers } = await this.#applyUsage(batches);
    for (const id of changed) changes.push({ collection: 'usage', id });
    for (const id of spentUsers) changes.push({ collection: 'user-spend', id });
    await this.publish(changes);
    return changes;
  }

  /**
   * Applies the documents' events in order, in one round trip for the reads and one pipeline of
   * scripts: the documents are read at once, each event is evolved from the state the events before
   * it left (kept here), and the scripts go out in log order on one connection, so Redis runs them in
   * that order, as one event at a time would (a read and a script each, which held a rebuild of a log
   * of documents to a few thousand events a second). A script still refuses an event older than what
   * its document holds: another writer (a node's write-through) may have applied it meanwhile.
   */
  async #applyDocuments(events: readonly GatewayEvent[]): Promise<ChangeMessage[]> {
    const steps: Array<{
      model: (typeof documentModels)[number];
      collection: ChangeMessage['collection'];
      id: string;
      key: string;
      event: GatewayEvent;
    }> = [];
    for (const event of events)
      for (const model of documentModels) {
        if (!model.canHandle(event)) continue;
        const collection = model.collection as ChangeMessage['collection'];
        const id = model.documentIdOf(event);
        steps.push({ model, collection, id, key: this.#keys.document(collection, id), event });
      }
    if (steps.length === 0) return [];
    const keys = [...new Set(steps.map((step) => step.key))];
    const stored = await this.#redis.mGet(keys);
    const state = new Map<string, Record<string, unknown> | null>(
      keys.map((key, index) => [key, stored[index] ? (JSON.parse(stored[index]!) as Record<string, unknown>) : null]),
    );
    const writes: Array<{ change: ChangeMessage; applied: Promise<unknown> }> = [];
    for (const { model, collection, id, key, event } of steps) {
      const current = state.get(key) ?? null;
      if (current && String(current['_eventId']) >= event.eventId) continue;
      const next = model.evolve(current, event) as Record<string, unknown> | null;
      const written = next ? JSON.stringify({ ...next, _eventId: event.eventId }) : '';
      state.set(key, next ? { ...next, _eventId: event.eventId } : null);
      const applied = this.#redis.eval(putDocumentScript, {
        keys: [
          key,
          this.#keys.index(collection),
          secondaryKey(collection, next, this.#keys),
          secondaryKey(collection, current, this.#keys),
        ],
        arguments: [written, event.eventId, id],
      });
      // With the document: a node applies it the moment the message arrives, with no read between.
      writes.push({ change: { collection, id, ...(written && { document: written }) }, applied });
    }
    const results = await Promise.all(writes.map((write) => write.applied));
    return writes.filter((_, index) => results[index] === 1).map((write) => write.change);
  }

  /**
   * A key's usage moves once per log position (its partition's usage offset) and its last use only forward, so the batches'
   * requests go to Redis together: a few script calls instead of two per request. Returns the keys
   * whose usage changed and the users whose spend did.
   */
  async #applyUsage(batches: readonly RedisBatch[]): Promise<{ changed: Set<string>; spentUsers: Set<string> }> {
    const changed = new Set<string>();
    const spentUsers = new Set<string>();
    // `concat` copies each batch's array in one go; `flatMap` went element by element, and over a
    // write of 30,000 requests it took 6% of the projector's CPU.
    const all = <Value>(of: (batch: RedisBatch) => Value[]): Value[] => ([] as Value[]).concat(...batches.map(of));
    const tokens = all((batch) => batch.usageTokens);
    const users = all((batch) => batch.usageUsers);
    const spent = all((batch) => batch.usageSpent);
    const usageKeys = all((batch) => batch.usageKeys);
    const counted = await this.#scriptInChunks(
      countUsageScript,
      tokens.length,
      { values: usageKeys, each: USAGE_KEYS },
      { values: withPositions(batches, usageKeys), each: USAGE_ARGUMENTS + 2 },
    );
    for (const index of counted) {
      changed.add(tokens[index]!);
      if (spent[index]) spentUsers.add(users[index]!);
    }
    const latest = new Map<string, string>();
    for (const batch of batches)
      for (const [tokenId, startedAt] of batch.latest) {
        const previous = latest.get(tokenId);
        if (previous === undefined || previous < startedAt) latest.set(tokenId, startedAt);
      }
    const touchedTokens = [...latest.keys()];
    const touched = await this.#scriptInChunks(
      touchScript,
      touchedTokens.length,
      { values: touchedTokens.map((tokenId) => this.#keys.usage(tokenId)), each: 1 },
      { values: [...latest.values()], each: 1 },
    );
    for (const index of touched) changed.add(touchedTokens[index]!);
    return { changed, spentUsers };
  }

  /**
   * Runs a per-item script over `count` items, USAGE_CHUNK per call (each item's `keys.each` keys and
   * `values.each` arguments in turn, then `trailing`); returns the indexes of the items the script
   * answered 1 for.
   */
  async #scriptInChunks(
    script: string,
    count: number,
    keys: { values: readonly string[]; each: number },
    values: { values: readonly string[]; each: number },
    trailing: string[] = [],
  ): Promise<number[]> {
    const calls: Array<Promise<number[]>> = [];
    // Sent at once (the client pipelines them, on one connection, so Redis runs them in order): a
    // large batch does not wait a round trip per chunk. A chunk whose earlier one failed refuses to
    // run (see countUsageScript), and usage sums and last-use times do not depend on the order.
    for (let start = 0; start < count; start += USAGE_CHUNK) {
      const end = Math.min(start + USAGE_CHUNK, count);
      const callArguments = values.values.slice(start * values.each, end * values.each);
      for (const value of trailing) callArguments.push(value);
      calls.push(
        this.#redis.eval(script, {
          keys: keys.values.slice(start * keys.each, end * keys.each),
          arguments: callArguments,
        }) as Promise<number[]>,
      );
    }
    const results = await Promise.all(calls);
    const answered: number[] = [];
    for (const [call, result] of results.entries())
      for (let index = 0; index < result.length; index++)
        if (result[index] === 1) answered.push(call * USAGE_CHUNK + index);
    return answered;
  }

  async publish(changes: readonly ChangeMessage[]): Promise<void> {
    // One message per batch keeps pub/sub traffic low under heavy usage.
    if (changes.length > 0) await this.#redis.publish(this.#keys.changes, JSON.stringify(changes));
  }
}

/**
 * The usage script's arguments: each request's, then its position and the position of the request
 * before it from the same partition in this write ('' for the first), which the script checks its
 * partition's offset has reached.
 */
function withPositions(batches: readonly RedisBatch[], usageKeys: readonly string[]): string[] {
  const values: string[] = [];
  const last = new Map<string, string>();
  let request = 0;
  for (const batch of batches)
    for (const [index, position] of batch.usagePositions.entries()) {
      for (let argument = 0; argument < USAGE_ARGUMENTS; argument++)
        values.push(batch.usageArguments[index * USAGE_ARGUMENTS + argument]!);
      const offsetKey = usageKeys[request * USAGE_KEYS]!;
      values.push(position, last.get(offsetKey) ?? '');
      last.set(offsetKey, position);
      request++;
    }
  return values;
}
