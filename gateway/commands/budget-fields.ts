/**
 * @module gateway/commands/budget-fields
 * A budget from the console (USD, a period) as the event fields (integer nano-dollars, the unit of
 * recorded costs, so spend and budget compare exactly). Absent stays absent: unchanged on update.
 */
import type { BudgetPeriod } from '../../contracts/events/index.ts';

export function budgetFields(input: {
  budget_usd?: number | null | undefined;
  budget_period?: BudgetPeriod | undefined;
}) {
  return {
    ...(input.budget_usd !== undefined && {
      budgetNanoUsd: input.budget_usd === null ? null : Math.round(input.budget_usd * 1e9),
    }),
    ...(input.budget_period !== undefined && { budgetPeriod: input.budget_period }),
  };
}
