/**
 * @module stores/cluster/redis-quota-ledger
 * The cluster's quota ledger, shared by every gateway node: per key, under the namespace prefix,
 * `quota:{<key>}:used` (tokens used), `quota:{<key>}:holds` (request id → tokens held) and
 * `quota:{<key>}:deadlines` (request id → when its hold lapses). One Lua script checks and holds,
 * another releases and counts, so two nodes can never both take the last of a quota. A hold lapses
 * after 15 minutes, so the holds of a node that died mid-request do not eat the quota forever. When
 * Redis does not answer the request is let through (fail open) and a warning logged, as the rate
 * limiter does; the projection's count still refuses a key that used its quota. A budget's
 * reservation fails closed instead (`failClosed`): overspending money is worse than a refusal. A
 * budget period's account (`lapsesAt`) expires a while after its period ended.
 */
import type { QuotaDecision, QuotaLedger, QuotaReservation } from '../ports.ts';
import type { Redis } from './redis-keys.ts';
import { bounded } from './redis-timeout.ts';

const HOLD_LAPSES_AFTER_MS = 15 * 60_000;

/**
 * KEYS: used, holds, deadlines. ARGV: quota, amount, projected used, hold id, now, deadline, and the
 * time the account lapses (ms, or '' to keep it).
 */
const RESERVE = `
local function lapse()
  if ARGV[7] ~= '' then
    for k = 1, 3 do redis.call('PEXPIREAT', KEYS[k], ARGV[7]) end
  end
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local projected = tonumber(ARGV[3])
if projected > used then
  used = projected
  redis.call('SET', KEYS[1], used)
end
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[5])
for _, id in ipairs(lapsed) do redis.call('HDEL', KEYS[2], id) end
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[5]) end
local held = 0
for _, amount in ipairs(redis.call('HVALS', KEYS[2])) do held = held + tonumber(amount) end
if used + held >= tonumber(ARGV[1]) then
  lapse()
  return {0, used, held}
end
redis.call('HSET', KEYS[2], ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[4])
lapse()
return {1, used, held + tonumber(ARGV[2])}
`;

/**
 * KEYS: used, holds, deadlines. ARGV: hold id, tokens used. A lapsing account's lapse carries over to
 * its count, which INCRBY may have just created.
 */
const SETTLE = `
local lapse = redis.call('PTTL', KEYS[3])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local used = redis.call('INCRBY', KEYS[1], ARGV[2])
if lapse > 0 then redis.call('PEXPIRE', KEYS[1], lapse) end
return used
`;

export class RedisQuotaLedger implements QuotaLedger {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #warn: (message: string, extra?: Record<string, unknown>) => void;
  #lastWarning = 0;

  constructor(redis: Redis, prefix: string, warn: (message: string, extra?: Record<string, unknown>) => void) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#warn = warn;
  }

  #keys(tokenId: string): string[] {
    // The hash tag keeps a key's three entries in one slot (Lua needs that on Redis Cluster).
    const base = `${this.#prefix}quota:{${tokenId}}`;
    return [`${base}:used`, `${base}:holds`, `${base}:deadlines`];
  }

  #failOpen(error: unknown): void {
    const now = Date.now();
    if (now - this.#lastWarning < 10_000) return;
    this.#lastWarning = now;
    this.#warn('quota ledger: Redis did not answer; quotas are checked against the projection only until it does', {
      error: String(error),
    });
  }

  async reserve(tokenId: string, reservation: QuotaReservation, now: number): Promise<QuotaDecision> {
    const amount = Math.max(0, Math.round(reservation.amount));
    try {
      const reply = (await bounded(
        this.#redis.eval(RESERVE, {
          keys: this.#keys(tokenId),
          arguments: [
            String(reservation.quota),
            String(amount),
            String(Math.max(0, Math.round(reservation.projectedUsed))),
            reservation.holdId,
            String(now),
            String(now + HOLD_LAPSES_AFTER_MS),
            reservation.lapsesAt === undefined ? '' : String(reservation.lapsesAt),
          ],
        }),
      )) as number[];
      const [allowed, used = 0, held = 0] = reply.map(Number);
      return { allowed: allowed === 1, used, held };
    } catch (error) {
      if (reservation.failClosed) throw error;
      this.#failOpen(error);
      return { allowed: true, used: reservation.projectedUsed, held: 0 };
    }
  }

  async settle(tokenId: string, holdId: string, usedTokens: number): Promise<void> {
    try {
      await bounded(
        this.#redis.eval(SETTLE, {
          keys: this.#keys(tokenId),
          arguments: [holdId, String(Math.max(0, Math.round(usedTokens)))],
        }),
      );
    } catch (error) {
      this.#failOpen(error);
    }
  }
}
