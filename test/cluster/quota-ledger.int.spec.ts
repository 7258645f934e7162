/**
 * The cluster's quota ledger on a real Redis: two nodes' reservations (two clients) never take more
 * than the quota allows, settling frees the rest, the projection's count is a floor, and the holds of
 * a node that died mid-request lapse.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from '../../stores/cluster/redis-keys.ts';
import { RedisQuotaLedger } from '../../stores/cluster/redis-quota-ledger.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();

describe.skipIf(services === null)('cluster quota ledger', () => {
  const prefix = `quota-ledger-${Date.now()}:`;
  const clients: Redis[] = [];
  let nodeA: RedisQuotaLedger;
  let nodeB: RedisQuotaLedger;
  const warn = () => {};

  beforeAll(async () => {
    for (let index = 0; index < 2; index++) {
      const client = createClient({ url: services!.redisUrl }) as Redis;
      await client.connect();
      clients.push(client);
    }
    nodeA = new RedisQuotaLedger(clients[0]!, prefix, warn);
    nodeB = new RedisQuotaLedger(clients[1]!, prefix, warn);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => {})));
  });

  const reservation = (holdId: string, amount: number, projectedUsed = 0) => ({
    quota: 100,
    amount,
    projectedUsed,
    holdId,
  });

  it('lets concurrent reservations through two nodes hold the quota once, the crossing one included', async () => {
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? nodeA : nodeB).reserve('concurrent', reservation(`r${index}`, 40), Date.now()),
      ),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
  });

  it('settles a hold to the tokens really used, freeing the rest for either node', async () => {
    await nodeA.reserve('settle', reservation('a', 90), Date.now());
    expect((await nodeB.reserve('settle', reservation('b', 10), Date.now())).allowed).toBe(true);
    expect((await nodeB.reserve('settle', reservation('c', 5), Date.now())).allowed).toBe(false);
    await nodeA.settle('settle', 'a', 20);
    await nodeB.settle('settle', 'b', 10);
    expect(await nodeB.reserve('settle', reservation('d', 5), Date.now())).toEqual({
      allowed: true,
      used: 30,
      held: 5,
    });
  });

  it('never counts fewer used tokens than the projection', async () => {
    expect(await nodeA.reserve('projected', reservation('a', 1, 100), Date.now())).toEqual({
      allowed: false,
      used: 100,
      held: 0,
    });
  });

  it('holds a budget in nano-dollars across two nodes: 200 concurrent holds overshoot by at most one', async () => {
    // $1,000,000 in nano-dollars with $0.25 holds: counts near 2^50 stay exact.
    const budget = 1_000_000 * 1e9;
    const hold = 250_000_000;
    const spent = budget - 3 * hold - 1;
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? nodeA : nodeB).reserve(
          'budget:token:big:total:',
          { quota: budget, amount: hold, projectedUsed: spent, holdId: `r${index}` },
          Date.now(),
        ),
      ),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(4);
    for (let index = 0; index < 200; index++) {
      if (decisions[index]!.allowed)
        await (index % 2 ? nodeB : nodeA).settle('budget:token:big:total:', `r${index}`, hold);
    }
    const after = await nodeA.reserve(
      'budget:token:big:total:',
      { quota: budget, amount: 1, projectedUsed: 0, holdId: 'x' },
      Date.now(),
    );
    expect(after).toEqual({ allowed: false, used: spent + 4 * hold, held: 0 });
    expect(after.used - budget).toBeLessThanOrEqual(hold);
  });

  it('lets a budget period’s account expire once it lapses, its count included', async () => {
    const lapsesAt = Date.now() + 60_000;
    const account = 'budget:token:t:daily:2026-01-01';
    await nodeA.reserve(account, { ...reservation('a', 10), lapsesAt }, Date.now());
    await nodeB.settle(account, 'a', 7);
    const base = `${prefix}quota:{${account}}`;
    for (const key of [`${base}:used`]) {
      const ttl = await clients[0]!.pTTL(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    expect(await clients[0]!.get(`${base}:used`)).toBe('7');
    // A quota account (no lapse) is kept.
    await nodeA.reserve('kept', reservation('a', 10), Date.now());
    await nodeA.settle('kept', 'a', 3);
    expect(await clients[0]!.pTTL(`${prefix}quota:{kept}:used`)).toBe(-1);
  });

  it('lets a quota through but rejects a budget (fail closed) when Redis does not answer', async () => {
    const closed = createClient({ url: services!.redisUrl }) as Redis;
    await closed.connect();
    await closed.quit();
    const ledger = new RedisQuotaLedger(closed, prefix, warn);
    expect((await ledger.reserve('down', reservation('a', 1), Date.now())).allowed).toBe(true);
    await expect(ledger.reserve('down', { ...reservation('b', 1), failClosed: true }, Date.now())).rejects.toThrow();
  });

  it('drops the holds of a node that never settled them once they lapse (15 minutes)', async () => {
    const start = Date.now();
    expect((await nodeA.reserve('lapsed', reservation('dead', 100), start)).allowed).toBe(true);
    expect((await nodeB.reserve('lapsed', reservation('next', 10), start + 60_000)).allowed).toBe(false);
    expect((await nodeB.reserve('lapsed', reservation('later', 10), start + 16 * 60_000)).allowed).toBe(true);
  });
});
