import { describe, expect, it } from 'vitest';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel, QuotaLedger } from '../../stores/ports.ts';
import { DEFAULT_COMPLETION_ALLOWANCE, reserveQuota } from './quota.ts';

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
    await reserveQuota(ledger, lookups, token, { input: 'hi', max_output_tokens: 5000 }, 400, 'r1');
    await reserveQuota(ledger, lookups, token, { input: 'hi' }, 400, 'r2');
    expect(amounts).toEqual([100 + 5000, 100 + DEFAULT_COMPLETION_ALLOWANCE]);
  });
});
