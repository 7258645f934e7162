/**
 * @module stores/memory-lookups
 * The in-process lookup maps the hot path reads: keys by hash, accounts by email, channels. The
 * embedded store keeps them as its read model (rebuilt from SQLite at start); the cluster store uses
 * the same maps as a cache in front of Redis.
 */
import type { ChannelDocument } from '../projector/read-models/channels/evolve.ts';
import type { SpendCounters } from '../projector/read-models/spend/spend.ts';
import type { TokenDocument } from '../projector/read-models/tokens/evolve.ts';
import type { UserDocument } from '../projector/read-models/users/evolve.ts';
import type { LookupReadModel, TokenUsage } from './ports.ts';

const noUsage: TokenUsage = Object.freeze({ usedTokens: 0, lastUsedAt: null });

export class MemoryLookups implements LookupReadModel {
  readonly #tokens = new Map<string, TokenDocument>();
  readonly #tokensByHash = new Map<string, TokenDocument>();
  readonly #usage = new Map<string, TokenUsage>();
  readonly #spend = new Map<string, SpendCounters>();
  readonly #users = new Map<string, UserDocument>();
  readonly #usersByEmail = new Map<string, UserDocument>();
  readonly #channels = new Map<string, ChannelDocument>();
  readonly #channelListeners: Array<() => void> = [];

  /** Puts (or, with null, removes) a document of one of the lookup collections. */
  put(collection: string, id: string, document: unknown): void {
    switch (collection) {
      case 'tokens':
        this.#putToken(id, document as TokenDocument | null);
        return;
      case 'users':
        this.#putUser(id, document as UserDocument | null);
        return;
      case 'channels':
        if (document) this.#channels.set(id, document as ChannelDocument);
        else this.#channels.delete(id);
        for (const listener of this.#channelListeners) listener();
        return;
    }
  }

  putUsage(tokenId: string, usage: TokenUsage): void {
    this.#usage.set(tokenId, usage);
  }

  putSpend(owner: string, counters: SpendCounters): void {
    this.#spend.set(owner, counters);
  }

  #putToken(id: string, document: TokenDocument | null): void {
    const previous = this.#tokens.get(id);
    if (previous) this.#tokensByHash.delete(previous.keyHash);
    if (!document) {
      this.#tokens.delete(id);
      return;
    }
    this.#tokens.set(id, document);
    this.#tokensByHash.set(document.keyHash, document);
  }

  #putUser(id: string, document: UserDocument | null): void {
    const previous = this.#users.get(id);
    if (previous) this.#usersByEmail.delete(previous.email);
    if (!document) {
      this.#users.delete(id);
      return;
    }
    this.#users.set(id, document);
    this.#usersByEmail.set(document.email, document);
  }

  tokenByKeyHash(keyHash: string): TokenDocument | undefined {
    return this.#tokensByHash.get(keyHash);
  }

  tokenById(tokenId: string): TokenDocument | undefined {
    return this.#tokens.get(tokenId);
  }

  tokensOfUser(userId: string): TokenDocument[] {
    return [...this.#tokens.values()].filter((token) => token.userId === userId);
  }

  tokenUsage(tokenId: string): TokenUsage {
    return this.#usage.get(tokenId) ?? noUsage;
  }

  spend(owner: string): SpendCounters | undefined {
    return this.#spend.get(owner);
  }

  userByEmail(email: string): UserDocument | undefined {
    return this.#usersByEmail.get(email.toLowerCase());
  }

  userById(userId: string): UserDocument | undefined {
    return this.#users.get(userId);
  }

  users(): UserDocument[] {
    return [...this.#users.values()];
  }

  channels(): ChannelDocument[] {
    return [...this.#channels.values()];
  }

  onChannelsChanged(listener: () => void): void {
    this.#channelListeners.push(listener);
  }

  // Everything is in memory already; the cluster replica overrides these to read Redis on a miss.
  async ensureKeyHash(_keyHash: string): Promise<void> {}
  async ensureUser(_userId: string): Promise<void> {}
  async ensureEmail(_email: string): Promise<void> {}
  async ensureToken(_tokenId: string): Promise<void> {}
  async refreshUsers(_userIds: readonly string[]): Promise<void> {}

  clear(): void {
    for (const map of [
      this.#tokens,
      this.#tokensByHash,
      this.#usage,
      this.#spend,
      this.#users,
      this.#usersByEmail,
      this.#channels,
    ]) {
      map.clear();
    }
  }
}
