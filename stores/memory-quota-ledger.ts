/**
 * @module stores/memory-quota-ledger
 * The embedded mode's quota ledger: per key, the tokens used and the holds of requests in flight, in
 * process memory. One thread serves every request in this mode, so a check and its hold are one step
 * with nothing in between. Nothing here needs to survive a restart: the used tokens are taken from the
 * projection whenever it knows more (at the first request after a start, it always does), and the holds
 * of requests that were in flight end with the process.
 */
import type { QuotaDecision, QuotaLedger, QuotaReservation } from './ports.ts';

interface Account {
  used: number;
  held: number;
  holds: Map<string, number>;
}

export class MemoryQuotaLedger implements QuotaLedger {
  readonly #accounts = new Map<string, Account>();

  #account(tokenId: string): Account {
    let account = this.#accounts.get(tokenId);
    if (!account) {
      account = { used: 0, held: 0, holds: new Map() };
      this.#accounts.set(tokenId, account);
    }
    return account;
  }

  async reserve(tokenId: string, reservation: QuotaReservation): Promise<QuotaDecision> {
    const account = this.#account(tokenId);
    account.used = Math.max(account.used, reservation.projectedUsed);
    if (account.used + account.held >= reservation.quota) {
      return { allowed: false, used: account.used, held: account.held };
    }
    const amount = Math.max(0, Math.round(reservation.amount));
    account.holds.set(reservation.holdId, amount);
    account.held += amount;
    return { allowed: true, used: account.used, held: account.held };
  }

  async settle(tokenId: string, holdId: string, usedTokens: number): Promise<void> {
    const account = this.#account(tokenId);
    const amount = account.holds.get(holdId);
    if (amount !== undefined) {
      account.holds.delete(holdId);
      account.held -= amount;
    }
    account.used += Math.max(0, usedTokens);
  }
}
