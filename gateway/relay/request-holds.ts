/**
 * @module gateway/relay/request-holds
 * What one request holds in the shared ledger (its key's token quota, its key's and account's money
 * budgets) and their settlement to what it used. The settlement is awaited before the answer's last
 * byte is sent: a client that got its answer and sends the next request, through this node or any
 * other, finds the spend settled, not still held at the request's maximum. Without that, a client
 * spending a budget one request at a time was refused as "held by requests in flight" whenever its
 * next request reached the ledger before the previous one's settlement did.
 */
import type { QuotaLedger } from '../../stores/ports.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import { settleBudgets } from './budget.ts';
import type { RequestRecord } from './request-record.ts';

export class RequestHolds {
  /** the key whose token quota this request holds, or null */
  quota: string | null = null;
  /** the ledger accounts of the budgets this request holds, or null */
  budgets: string[] | null = null;
  #settlement: Promise<unknown> | null = null;

  constructor(
    private readonly ledger: QuotaLedger | undefined,
    private readonly record: RequestRecord,
    private readonly prices: PriceBook | undefined,
  ) {}

  /** True when the request holds anything: the one check a request without quota or budget pays. */
  get any(): boolean {
    return this.quota !== null || this.budgets !== null;
  }

  /** Settles every hold to the record's usage and cost as they stand, once; later calls await the same. */
  settle(): Promise<unknown> {
    if (this.#settlement) return this.#settlement;
    const ledger = this.ledger;
    if (!ledger || !this.any) {
      this.#settlement = Promise.resolve();
      return this.#settlement;
    }
    const record = this.record;
    const settled: Array<Promise<unknown>> = [];
    if (this.quota !== null) {
      const used = record.usage ? record.usage.promptTokens + record.usage.completionTokens : 0;
      settled.push(ledger.settle(this.quota, record.requestId, used));
    }
    if (this.budgets !== null) {
      settled.push(settleBudgets(ledger, this.budgets, record.requestId, record.costWith(this.prices)));
    }
    // The ledger logs its own failures; a hold it could not settle lapses by itself.
    this.#settlement = Promise.all(settled).catch(() => undefined);
    return this.#settlement;
  }
}
