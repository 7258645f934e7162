/**
 * @module stores/memory-quota-ledger
 * The embedded mode's quota ledger: per key, the tokens used and the holds of requests in flight, in
 * process memory. One thread serves every request in this mode, so a check and its hold are one step
 * with nothing in between. Nothing here needs to survive a restart: the used tokens are taken from the
 * projection whenever it knows more (at the first request after a start, it always does), and the holds
 * of requests that were in flight end with the process. A budget period's account is forgotten a
 * while after its period ended (`lapsesAt`).
 */
import type { QuotaDecision, QuotaLedger, QuotaReservation } from './ports.ts';

interface Account {
  used: number;
  held: number;
  holds: Map<string, number>;
  /** when the account may be forgotten (a past budget period's); Infinity: never */
  lapsesAt: number;
}

/** How often, at most, accounts past their lapse are looked for. */
const SWEEP_INTERVAL_MS = 60_000;

export class MemoryQuotaLedger implements QuotaLedger {
  readonly #accounts = new Map<string, Account>();
  #nextSweep = 0;

  #account(tokenId: string): Account {
    let account = this.#accounts.get(tokenId);
    if (!account) {
      account = { used: 0, held: 0, holds: new Map(), lapsesAt: Number.POSITIVE_INFINITY };
      this.#accounts.set(tokenId, account);
    }
    return account;
  }

  /** Forgets lapsed accounts: every budget period leaves one behind. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [id, account] of this.#accounts) if (account.lapsesAt <= now) this.#accounts.delete(id);
  }

  async reserve(tokenId: string, reservation: QuotaReservation, now = Date.now()): Promise<QuotaDecision> {
    this.#sweep(now);
    const account = this.#account(tokenId);
    if (reservation.lapsesAt !== undefined) account.lapsesAt = reservation.lapsesAt;
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
