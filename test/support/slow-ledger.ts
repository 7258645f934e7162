/**
 * A quota ledger that takes its time to settle (a busy Redis, a far one), for the tests that prove an
 * answer waits for its request's settlement: `work` runs with every settlement delayed by `delayMs`,
 * and the ledger is put back afterwards.
 */
import type { QuotaLedger } from '../../stores/ports.ts';

export async function withSlowSettlement<Result>(
  ledger: QuotaLedger,
  delayMs: number,
  work: () => Promise<Result>,
): Promise<Result> {
  const settle = ledger.settle;
  ledger.settle = async (...given) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return settle.apply(ledger, given);
  };
  try {
    return await work();
  } finally {
    ledger.settle = settle;
  }
}
