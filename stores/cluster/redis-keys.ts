/**
 * @module stores/cluster/redis-keys
 * The Redis key layout of the lookup projections, under one prefix (so several deployments or test
 * runs can share a server):
 * - `doc:<collection>:<id>`: a document as JSON, with `_eventId`, the newest event applied to it
 * - `index:<collection>`: the ids of a collection (gateway nodes load their replica from it)
 * - `keyhash:<hash>` → token id; `email:<email>` → user id
 * - `usage:<tokenId>`: hash of `used` tokens and `lastUsedAt`, and the key's spend: `total:nano`,
 *   `<period>:start` and `<period>:nano` for the daily, weekly and monthly budget periods
 * - `spend:user:<userId>`: the same spend fields, for all of an account's keys
 * - `usage-offset:<topic>:<partition>`: the log position of the last request whose usage was counted
 *   from that partition (redis-projection-scripts.ts); one key per partition, whatever the traffic
 * - `claim:email:<email>` → the user id that claimed the email at registration (kept)
 * - `response:<id>`: a stored response or its tombstone, as JSON, expiring with it (redis-responses.ts)
 * - `response-bytes:<userId>`: hash of the JSON bytes of an account's live stored responses by the day
 *   they lapse on (redis-responses.ts)
 * - `lock:<scope>`: held while a command of that scope decides and appends (expires after 10 s)
 * - channel `changes`: `{collection, id, document?}` messages telling gateway nodes what changed
 */
import type { RedisClientType } from 'redis';

export type Redis = RedisClientType;

export class RedisKeys {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  document(collection: string, id: string): string {
    return `${this.prefix}doc:${collection}:${id}`;
  }

  index(collection: string): string {
    return `${this.prefix}index:${collection}`;
  }

  keyHash(hash: string): string {
    return `${this.prefix}keyhash:${hash}`;
  }

  email(email: string): string {
    return `${this.prefix}email:${email}`;
  }

  usage(tokenId: string): string {
    return `${this.prefix}usage:${tokenId}`;
  }

  userSpend(userId: string): string {
    return `${this.prefix}spend:user:${userId}`;
  }

  usageOffset(topic: string, partition: number): string {
    return `${this.prefix}usage-offset:${topic}:${partition}`;
  }

  claim(kind: string, value: string): string {
    return `${this.prefix}claim:${kind}:${value}`;
  }

  lock(scope: string): string {
    return `${this.prefix}lock:${scope}`;
  }

  get changes(): string {
    return `${this.prefix}changes`;
  }
}

export interface ChangeMessage {
  collection: 'tokens' | 'users' | 'channels' | 'usage' | 'user-spend';
  id: string;
  /** the document as stored (JSON with `_eventId`), when the change wrote one */
  document?: string;
}
