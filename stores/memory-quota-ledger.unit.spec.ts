import { describe, expect, it } from 'vitest';
import { MemoryQuotaLedger } from './memory-quota-ledger.ts';

const reservation = (holdId: string, amount: number, projectedUsed = 0) => ({
  quota: 100,
  amount,
  projectedUsed,
  holdId,
});

describe('the embedded quota ledger', () => {
  it('holds until used and held reach the quota, then refuses, the one that crossed it included', async () => {
    const ledger = new MemoryQuotaLedger();
    const decisions = await Promise.all(
      Array.from({ length: 10 }, (_, index) => ledger.reserve('key', reservation(`r${index}`, 40))),
    );
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, ...Array(7).fill(false)]);
    expect(decisions[3]).toEqual({ allowed: false, used: 0, held: 120 });
  });

  it('settles a hold to the tokens really used, freeing the rest', async () => {
    const ledger = new MemoryQuotaLedger();
    await ledger.reserve('key', reservation('a', 90));
    expect((await ledger.reserve('key', reservation('b', 10))).allowed).toBe(true);
    expect((await ledger.reserve('key', reservation('c', 5))).allowed).toBe(false);
    await ledger.settle('key', 'a', 20);
    await ledger.settle('key', 'b', 10);
    expect(await ledger.reserve('key', reservation('d', 5))).toEqual({ allowed: true, used: 30, held: 5 });
  });

  it('never counts fewer used tokens than the projection (a restart starts from it)', async () => {
    const ledger = new MemoryQuotaLedger();
    expect(await ledger.reserve('key', reservation('a', 1, 100))).toEqual({ allowed: false, used: 100, held: 0 });
    const other = new MemoryQuotaLedger();
    await other.reserve('key', reservation('a', 10));
    await other.settle('key', 'a', 60);
    // The projection has not counted the 60 yet: the ledger's own count stands.
    expect((await other.reserve('key', reservation('b', 10))).used).toBe(60);
  });
});
