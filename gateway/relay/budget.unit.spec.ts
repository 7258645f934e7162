import { describe, expect, it } from 'vitest';
import { addSpend } from '../../projector/read-models/spend/spend.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import { MemoryLookups } from '../../stores/memory-lookups.ts';
import { MemoryQuotaLedger } from '../../stores/memory-quota-ledger.ts';
import { PriceBook } from '../pricing/price-book.ts';
import { estimatedMaximumCost, formatUsd, hasBudget, reserveBudgets, settleBudgets } from './budget.ts';
import type { Route } from './channel-router.ts';
import { GatewayError } from './errors.ts';

const at = (iso: string) => Date.parse(iso);

function setup(budget: Partial<TokenDocument>) {
  const lookups = new MemoryLookups();
  const token: TokenDocument = {
    tokenId: 't1',
    userId: 'u1',
    name: 'k',
    keyHash: 'h',
    keyHint: 'sk-…',
    enabled: true,
    revoked: false,
    expiresAt: null,
    quota: null,
    models: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...budget,
  };
  lookups.put('tokens', 't1', token);
  return { lookups, token, ledger: new MemoryQuotaLedger() };
}

async function refusalOf(work: Promise<unknown>): Promise<GatewayError> {
  const error = await work.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('budget reservations over calendar periods (injected clock)', () => {
  it('refuses a spent daily budget until the next UTC day, then starts from nothing', async () => {
    const { lookups, token, ledger } = setup({ budgetNanoUsd: 100, budgetPeriod: 'daily' });
    const evening = at('2026-05-04T23:59:00Z');
    for (const holdId of ['a', 'b']) {
      const held = await reserveBudgets(ledger, lookups, token, 60, holdId, evening);
      await settleBudgets(ledger, held, holdId, 60);
    }
    const refused = await refusalOf(reserveBudgets(ledger, lookups, token, 60, 'c', evening));
    expect(refused.code).toBe('budget_exceeded');
    expect(refused.status).toBe(429);
    expect(refused.message).toContain("This API key's daily budget of $0.0000001 is spent ($0.00000012 used)");
    expect(refused.message).toContain('It resets at 2026-05-05T00:00:00.000Z (UTC)');
    const morning = at('2026-05-05T00:00:01Z');
    expect(await reserveBudgets(ledger, lookups, token, 60, 'd', morning)).toEqual([
      'budget:token:t1:daily:2026-05-05',
    ]);
  });

  it('takes a monthly spend from the projection (a restart) and lets it go at the first of the month', async () => {
    const { lookups, token, ledger } = setup({ budgetNanoUsd: 1000, budgetPeriod: 'monthly' });
    lookups.putSpend('token:t1', addSpend(undefined, at('2026-01-10T00:00:00Z'), 1000));
    const refused = await refusalOf(reserveBudgets(ledger, lookups, token, 1, 'a', at('2026-01-31T23:00:00Z')));
    expect(refused.message).toContain('resets at 2026-02-01T00:00:00.000Z');
    await expect(reserveBudgets(ledger, lookups, token, 1, 'b', at('2026-02-01T00:00:00Z'))).resolves.toHaveLength(1);
  });

  it('holds the account budget too, giving back the key’s hold when the account refuses', async () => {
    const { lookups, token, ledger } = setup({ budgetNanoUsd: 1000 });
    lookups.put('users', 'u1', {
      userId: 'u1',
      email: 'a@example.com',
      name: 'a',
      passwordHash: 'x',
      role: 'user',
      createdAt: '2026-01-01T00:00:00Z',
      budgetNanoUsd: 50,
      budgetPeriod: 'weekly',
    });
    const now = at('2026-05-06T12:00:00Z');
    const held = await reserveBudgets(ledger, lookups, token, 60, 'a', now);
    expect(held).toEqual(['budget:token:t1:total:', 'budget:user:u1:weekly:2026-05-04']);
    const refused = await refusalOf(reserveBudgets(ledger, lookups, token, 60, 'b', now));
    expect(refused.code).toBe('budget_held_by_requests_in_flight');
    expect(refused.message).toContain("Your account's weekly budget (all of its keys together)");
    // The refused request's key hold was given back: the key's ledger holds only request a.
    expect(
      await ledger.reserve('budget:token:t1:total:', { quota: 1000, amount: 0, projectedUsed: 0, holdId: 'probe' }),
    ).toMatchObject({ held: 60 });
  });

  it('refuses (503, retry) rather than relay unheld when the ledger does not answer, giving back any hold', async () => {
    const { lookups, token } = setup({ budgetNanoUsd: 1000 });
    const settled: string[] = [];
    const silent = {
      reserve: async () => {
        throw new Error('no answer within 500 ms');
      },
      settle: async (account: string) => {
        settled.push(account);
      },
    };
    const refused = await refusalOf(reserveBudgets(silent, lookups, token, 10, 'a', Date.now()));
    expect(refused.status).toBe(503);
    expect(refused.code).toBe('budget_unavailable');
    expect(settled).toEqual(['budget:token:t1:total:']);
  });

  it('costs a key without budgets one check, and formats amounts', () => {
    const { lookups, token } = setup({});
    expect(hasBudget(token, lookups)).toBe(false);
    expect(hasBudget({ ...token, budgetNanoUsd: 0 }, lookups)).toBe(true);
    expect(formatUsd(5_000_000_000)).toBe('$5.00');
    expect(formatUsd(1_234_567)).toBe('$0.001234567');
  });

  it('holds a prompt at its dearest rate: a one-hour cache write costs more than input or a five-minute write', () => {
    const prices = new PriceBook(
      {
        opus: {
          input_per_million: 15,
          output_per_million: 75,
          cache_write_per_million: 18.75,
          cache_write_1h_per_million: 30,
        },
      },
      { useDatabase: false },
    );
    const route = { upstreamModel: 'opus', channel: { type: 'anthropic', baseUrl: 'http://x' } } as unknown as Route;
    // 1,000 prompt tokens at 30 USD and 100 completion tokens at 75 USD per million
    expect(estimatedMaximumCost(prices, 'opus', [route], 1000, 100, 0)).toBe(30_000_000 + 7_500_000);
    const database = new PriceBook();
    const sonnet = {
      upstreamModel: 'claude-sonnet-4-5',
      channel: { type: 'anthropic', baseUrl: 'https://api.anthropic.com' },
    } as unknown as Route;
    // the database's one-hour write price, 6 USD per million, over its input price of 3
    expect(estimatedMaximumCost(database, 'sonnet', [sonnet], 1000, 0, Date.parse('2026-01-15T00:00:00Z'))).toBe(
      6_000_000,
    );
  });
});
