/**
 * @module stores/cluster/redis-key-hash-reader
 * Asks Redis which key a hash belongs to, for hashes a gateway node has not seen (a key created
 * through another node a moment ago), without letting made-up keys cost a Redis read each:
 * - a hash Redis did not know is remembered as unknown for a short time (2 s; at most 10,000 hashes,
 *   the oldest forgotten first), so a client repeating a wrong key costs one read per 2 s;
 * - hashes asked for at once are read together, one `MGET` per batch and one batch in flight, so a
 *   flood of distinct made-up keys costs one round trip per batch, not one per request.
 * Remembering a real key as unknown cannot refuse it: the node that creates a key writes it to Redis
 * before it answers, so nobody holds the key before Redis knows it.
 */
import type { Redis, RedisKeys } from './redis-keys.ts';
import { bounded } from './redis-timeout.ts';

export interface KeyHashReaderOptions {
  unknownForMs: number;
  unknownCapacity: number;
  batchSize: number;
}

const defaults: KeyHashReaderOptions = { unknownForMs: 2_000, unknownCapacity: 10_000, batchSize: 500 };

interface Waiting {
  promise: Promise<string | null>;
  resolve(tokenId: string | null): void;
  reject(error: unknown): void;
}

function waiting(): Waiting {
  let resolve!: (tokenId: string | null) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<string | null>((resolveWith, rejectWith) => {
    resolve = resolveWith;
    reject = rejectWith;
  });
  return { promise, resolve, reject };
}

export class KeyHashReader {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #options: KeyHashReaderOptions;
  /** hash → when it may be asked again; insertion order is expiry order (one lifetime for all) */
  readonly #unknown = new Map<string, number>();
  /** hashes queued or in flight, so concurrent misses of one hash share one read */
  readonly #pending = new Map<string, Waiting>();
  #queue: string[] = [];
  #reading = false;
  /** Redis round trips made so far. */
  reads = 0;

  constructor(redis: Redis, keys: RedisKeys, options: Partial<KeyHashReaderOptions> = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#options = { ...defaults, ...options };
  }

  /** The id of the token the hash belongs to, or null; rejects when Redis does not answer. */
  tokenIdOf(keyHash: string, now = Date.now()): Promise<string | null> {
    const until = this.#unknown.get(keyHash);
    if (until !== undefined) {
      if (until > now) return Promise.resolve(null);
      this.#unknown.delete(keyHash);
    }
    let entry = this.#pending.get(keyHash);
    if (!entry) {
      entry = waiting();
      this.#pending.set(keyHash, entry);
      this.#queue.push(keyHash);
      // Misses arriving in the same turn of the event loop join one batch.
      if (!this.#reading && this.#queue.length === 1) setImmediate(() => void this.#readBatch());
    }
    return entry.promise;
  }

  async #readBatch(): Promise<void> {
    if (this.#reading || this.#queue.length === 0) return;
    this.#reading = true;
    const batch = this.#queue.splice(0, this.#options.batchSize);
    this.reads++;
    try {
      const tokenIds = await bounded(this.#redis.mGet(batch.map((hash) => this.#keys.keyHash(hash))));
      const now = Date.now();
      batch.forEach((hash, index) => {
        const tokenId = tokenIds[index] ?? null;
        if (tokenId === null) this.#rememberUnknown(hash, now);
        this.#settle(hash)?.resolve(tokenId);
      });
    } catch (error) {
      for (const hash of batch) this.#settle(hash)?.reject(error);
    } finally {
      this.#reading = false;
      if (this.#queue.length > 0) setImmediate(() => void this.#readBatch());
    }
  }

  #settle(hash: string): Waiting | undefined {
    const entry = this.#pending.get(hash);
    this.#pending.delete(hash);
    return entry;
  }

  #rememberUnknown(hash: string, now: number): void {
    if (this.#unknown.size >= this.#options.unknownCapacity) {
      const oldest = this.#unknown.keys().next().value;
      if (oldest !== undefined) this.#unknown.delete(oldest);
    }
    this.#unknown.set(hash, now + this.#options.unknownForMs);
  }
}
