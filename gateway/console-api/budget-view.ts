/**
 * @module gateway/console-api/budget-view
 * A key's or an account's budget as the console shows it: the limit, its period, what was spent in
 * the current period (the projection's count) and when the period resets.
 */
import type { BudgetPeriod } from '../../contracts/console-api.ts';
import { periodEndMs, type SpendCounters, spentIn } from '../../projector/read-models/spend/spend.ts';

export function budgetView(
  budgetNanoUsd: number | null | undefined,
  period: BudgetPeriod | undefined,
  spend: SpendCounters | undefined,
  now: number,
) {
  const effective = period ?? 'total';
  const end = budgetNanoUsd == null ? null : periodEndMs(effective, now);
  return {
    budget_usd: budgetNanoUsd == null ? null : budgetNanoUsd / 1e9,
    budget_period: effective,
    spent_usd: spentIn(spend, effective, now) / 1e9,
    budget_resets_at: end === null ? null : new Date(end).toISOString(),
  };
}
