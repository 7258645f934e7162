/**
 * @module stores/cluster/redis-timeout
 * A bound on how long the hot path waits for Redis: the client queues commands while it reconnects,
 * and a request must not hang on that queue.
 */

export const REDIS_TIMEOUT_MS = 500;

/** The call's result, or a rejection once `REDIS_TIMEOUT_MS` passed without an answer. */
export function bounded<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
