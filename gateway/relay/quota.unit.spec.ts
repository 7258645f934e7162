import { describe, expect, it } from 'vitest';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel, QuotaLedger } from '../../stores/ports.ts';
import { completionAllowance, DEFAULT_COMPLETION_ALLOWANCE, reserveQuota, tokenEstimate } from './quota.ts';

describe('reserveQuota', () => {
  it("holds a Responses request's max_output_tokens as its completion allowance", async () => {
    const amounts: number[] = [];
    const ledger: QuotaLedger = {
      reserve: async (_tokenId, reservation) => {
        amounts.push(reservation.amount);
        return { allowed: true, used: 0, held: reservation.amount };
      },
      settle: async () => {},
    };
    const lookups = { tokenUsage: () => ({ usedTokens: 0 }) } as unknown as LookupReadModel;
    const token = { tokenId: 't1', quota: 1_000_000 } as TokenDocument;
    await reserveQuota(ledger, lookups, token, tokenEstimate({ input: 'hi', max_output_tokens: 5000 }, 400), 'r1');
    await reserveQuota(ledger, lookups, token, tokenEstimate({ input: 'hi' }, 400), 'r2');
    // The earlier turns of a continued conversation are held as prompt.
    await reserveQuota(ledger, lookups, token, tokenEstimate({ input: 'hi' }, 400, 50_000), 'r3');
    expect(amounts).toEqual([
      100 + 5000,
      100 + DEFAULT_COMPLETION_ALLOWANCE,
      100 + 50_000 + DEFAULT_COMPLETION_ALLOWANCE,
    ]);
  });
});

describe('completionAllowance', () => {
  it('counts every choice chat `n` asks for', () => {
    expect(completionAllowance({ n: 128, max_tokens: 100 })).toBe(12_800);
    expect(completionAllowance({ n: 3 })).toBe(3 * DEFAULT_COMPLETION_ALLOWANCE);
    expect(completionAllowance({ n: 1, max_completion_tokens: 7 })).toBe(7);
    expect(completionAllowance({ n: null, max_tokens: 7 })).toBe(7);
  });
});
