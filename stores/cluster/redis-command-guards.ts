/**
 * @module stores/cluster/redis-command-guards
 * The cluster's command guards, shared by every gateway node through Redis: an email claim is a
 * `SET NX` of `claim:email:<email>` (kept once the account exists; deleted only by the claimer, when
 * its append failed), and a scope is a lock (`SET NX PX` with a random token, let go by a script that
 * deletes it only if the token is still ours), held while a command decides and appends. The lock
 * lapses after 10 s, so a node that died holding it blocks the scope no longer than that.
 */
import { randomUUID } from 'node:crypto';
import { type CommandGuards, GuardBusyError } from '../ports.ts';
import type { Redis, RedisKeys } from './redis-keys.ts';

const LOCK_LAPSES_AFTER_MS = 10_000;
const WAIT_AT_MOST_MS = 10_000;

/** KEYS: the claim or lock. ARGV: the holder's value. Deletes it only if it still holds that value. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export class RedisCommandGuards implements CommandGuards {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;

  constructor(redis: Redis, keys: RedisKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async claimEmail(email: string, userId: string): Promise<boolean> {
    const key = this.#keys.claim('email', email);
    if ((await this.#redis.set(key, userId, { NX: true })) === 'OK') return true;
    // A retried registration of the same account still holds its own claim.
    return (await this.#redis.get(key)) === userId;
  }

  async releaseEmail(email: string, userId: string): Promise<void> {
    await this.#redis.eval(RELEASE, { keys: [this.#keys.claim('email', email)], arguments: [userId] });
  }

  async exclusively<T>(scope: string, work: () => Promise<T>): Promise<T> {
    const key = this.#keys.lock(scope);
    const token = randomUUID();
    const deadline = Date.now() + WAIT_AT_MOST_MS;
    let pause = 5;
    while ((await this.#redis.set(key, token, { NX: true, PX: LOCK_LAPSES_AFTER_MS })) !== 'OK') {
      if (Date.now() > deadline) throw new GuardBusyError(scope);
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
      pause = Math.min(pause * 2, 100);
    }
    try {
      return await work();
    } finally {
      await this.#redis.eval(RELEASE, { keys: [key], arguments: [token] }).catch(() => {});
    }
  }
}
