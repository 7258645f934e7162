/**
 * @module stores/cluster/redis-lookups
 * A gateway node's lookups in the cluster: an in-memory replica of the Redis projections (loaded at
 * start, kept current by the `changes` channel), so the hot path reads memory. A miss is asked of
 * Redis before it is refused, which is what makes a key created on another node work here at once
 * (the relay calls `ensureKeyHash` for a key hash not in memory).
 */
import { log } from '../../platform/log.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import {
  resettingPeriods,
  type SpendCounters,
  tokenSpendOwner,
  userSpendOwner,
} from '../../projector/read-models/spend/spend.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import type { TokenUsage } from '../ports.ts';
import { KeyHashReader } from './redis-key-hash-reader.ts';
import type { ChangeMessage, Redis, RedisKeys } from './redis-keys.ts';
import { bounded } from './redis-timeout.ts';

type Collection = 'tokens' | 'users' | 'channels';

/** The spend fields of a usage or spend hash (redis-keys.ts); undefined when nothing was spent. */
function spendOf(hash: Record<string, string>): SpendCounters | undefined {
  if (hash['total:nano'] === undefined) return undefined;
  const counters = { total: { start: '', nanoUsd: Number(hash['total:nano']) } } as SpendCounters;
  for (const period of resettingPeriods) {
    counters[period] = { start: hash[`${period}:start`] ?? '', nanoUsd: Number(hash[`${period}:nano`] ?? 0) };
  }
  return counters;
}

export class RedisLookups extends MemoryLookups {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #keys: RedisKeys;
  readonly keyHashes: KeyHashReader;
  /** the newest event applied to each document (`collection:id`), so an older read never undoes it */
  readonly #versions = new Map<string, string>();
  #lastWarning = 0;

  constructor(redis: Redis, subscriber: Redis, keys: RedisKeys) {
    super();
    this.#redis = redis;
    this.#subscriber = subscriber;
    this.#keys = keys;
    this.keyHashes = new KeyHashReader(redis, keys);
  }

  /** Subscribes first, then loads, so no change between the two is missed. */
  async start(): Promise<void> {
    await this.#subscriber.subscribe(this.#keys.changes, (message) => {
      void this.#onChanges(message).catch((error: unknown) =>
        log.error('lookup reload failed', { error: String(error) }),
      );
    });
    for (const collection of ['users', 'tokens', 'channels'] as const) {
      const ids = await this.#redis.sMembers(this.#keys.index(collection));
      await Promise.all(ids.map((id) => this.reload(collection, id)));
    }
  }

  /**
   * A change that carries its document is applied before this returns, with no await: a key changed
   * through another node is enforced here from the next request that arrives after the message
   * (which Redis sends before that node's command can answer).
   */
  async #onChanges(message: string): Promise<void> {
    const changes = JSON.parse(message) as ChangeMessage[];
    await Promise.all(
      changes.map((change) => {
        if (change.collection === 'usage') return this.reloadUsage(change.id);
        if (change.collection === 'user-spend') return this.reloadUserSpend(change.id);
        if (change.document) {
          this.#putStored(change.collection, change.id, change.document);
          return undefined;
        }
        return this.reload(change.collection, change.id);
      }),
    );
  }

  /** Puts a stored document (or its absence) unless a newer event of it was applied already. */
  #putStored(collection: Collection, id: string, stored: string | null): Record<string, unknown> | null {
    const document = stored ? (JSON.parse(stored) as Record<string, unknown>) : null;
    const version = document ? String(document['_eventId'] ?? '') : '';
    const key = `${collection}:${id}`;
    const applied = this.#versions.get(key);
    if (document && applied !== undefined && applied > version) return document;
    if (document) {
      this.#versions.set(key, version);
      delete document['_eventId'];
    }
    this.put(collection, id, document);
    return document;
  }

  async reload(collection: Collection, id: string): Promise<void> {
    const stored = await this.#redis.get(this.#keys.document(collection, id));
    const document = this.#putStored(collection, id, stored);
    if (collection === 'tokens' && document) await this.reloadUsage(id);
    if (collection === 'users' && document) await this.reloadUserSpend(id);
  }

  async reloadUsage(tokenId: string): Promise<void> {
    const usage = await this.#redis.hGetAll(this.#keys.usage(tokenId));
    const value: TokenUsage = { usedTokens: Number(usage['used'] ?? 0), lastUsedAt: usage['lastUsedAt'] ?? null };
    this.putUsage(tokenId, value);
    const spend = spendOf(usage);
    if (spend) this.putSpend(tokenSpendOwner(tokenId), spend);
  }

  async reloadUserSpend(userId: string): Promise<void> {
    const spend = spendOf(await this.#redis.hGetAll(this.#keys.userSpend(userId)));
    if (spend) this.putSpend(userSpendOwner(userId), spend);
  }

  /**
   * While Redis is unreachable a miss stays a miss: known keys keep working from memory, a key created
   * on another node during the outage is refused until Redis answers (documented in docs/operations.md, "Scale out").
   */
  async #tolerant(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      // One line per 10 s: during an outage every unknown key would otherwise log one.
      if (Date.now() - this.#lastWarning < 10_000) return;
      this.#lastWarning = Date.now();
      log.warn('Redis lookup failed; answering from memory', { error: String(error) });
    }
  }

  override async ensureKeyHash(keyHash: string): Promise<void> {
    if (this.tokenByKeyHash(keyHash)) return;
    await this.#tolerant(async () => {
      const tokenId = await this.keyHashes.tokenIdOf(keyHash);
      if (tokenId) await bounded(this.reload('tokens', tokenId));
    });
  }

  override async ensureUser(userId: string): Promise<void> {
    if (!this.userById(userId)) await this.#tolerant(() => this.reload('users', userId));
  }

  override async ensureEmail(email: string): Promise<void> {
    if (this.userByEmail(email)) return;
    await this.#tolerant(async () => {
      const userId = await this.#redis.get(this.#keys.email(email.toLowerCase()));
      if (userId) await this.reload('users', userId);
    });
  }

  /** Not tolerant: a decision that needs the latest accounts must not be taken on stale ones. */
  override async refreshUsers(userIds: readonly string[]): Promise<void> {
    await Promise.all([...new Set(userIds)].map((userId) => bounded(this.reload('users', userId))));
  }

  override async ensureToken(tokenId: string): Promise<void> {
    if (!this.tokenById(tokenId)) await this.#tolerant(() => this.reload('tokens', tokenId));
  }
}

export type { ChannelDocument, TokenDocument, UserDocument };
