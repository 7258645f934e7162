/**
 * @module projector/read-models/spend
 * What a key, or all of an account's keys, spent in the current budget period, folded from the
 * recorded costs. Each period keeps only its latest calendar period (UTC): a cost of a newer period
 * starts it again, a cost of an older one (a late event) leaves it alone, so the counters do not
 * depend on the order the costs arrive in. Counting each cost once is the caller's part (the usage
 * projection's applied marker), as for the token count. Period starts are ISO strings that sort by
 * time: `YYYY-MM-DD` for a day and a week (its Monday), `YYYY-MM` for a month, '' for all time.
 */
import type { BudgetPeriod } from '../../../contracts/events/index.ts';

export interface PeriodSpend {
  start: string;
  nanoUsd: number;
}

export type SpendCounters = Record<BudgetPeriod, PeriodSpend>;

/** The periods that reset, in the order the cluster's usage script takes their starts. */
export const resettingPeriods = ['daily', 'weekly', 'monthly'] as const;

const DAY_MS = 86_400_000;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The first instant of the period holding `ms`, in ms since the epoch (0 for `total`). */
export function periodStartMs(period: BudgetPeriod, ms: number): number {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  switch (period) {
    case 'total':
      return 0;
    case 'daily':
      return day;
    case 'weekly':
      // 1970-01-01 was a Thursday: (weekday + 6) % 7 days back is the Monday.
      return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
    case 'monthly': {
      const date = new Date(ms);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    }
  }
}

type ResettingPeriod = (typeof resettingPeriods)[number];

/**
 * The names of the periods holding the last day asked for, kept because nearly every call asks for
 * today: each cost a projection batch folds in, each budget check. Printing the dates afresh for each
 * call was a sixth of the store worker's time under load (docs/performance.md, "Rollups and spend
 * summed per batch").
 */
let rememberedDay = Number.NaN;
let rememberedStarts: Record<ResettingPeriod, string> = { daily: '', weekly: '', monthly: '' };

function startsOfDay(ms: number): Record<ResettingPeriod, string> {
  const day = Math.floor(ms / DAY_MS);
  if (day !== rememberedDay) {
    rememberedStarts = {
      daily: isoDay(periodStartMs('daily', ms)),
      weekly: isoDay(periodStartMs('weekly', ms)),
      monthly: isoDay(periodStartMs('monthly', ms)).slice(0, 7),
    };
    rememberedDay = day;
  }
  return rememberedStarts;
}

/** The name of the period holding `ms`: what a counter and a ledger account are keyed by. */
export function periodStart(period: BudgetPeriod, ms: number): string {
  return period === 'total' ? '' : startsOfDay(ms)[period];
}

/** When the period holding `ms` ends, in ms; null for `total`, which never resets. */
export function periodEndMs(period: BudgetPeriod, ms: number): number | null {
  switch (period) {
    case 'total':
      return null;
    case 'daily':
      return periodStartMs(period, ms) + DAY_MS;
    case 'weekly':
      return periodStartMs(period, ms) + 7 * DAY_MS;
    case 'monthly': {
      const date = new Date(ms);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    }
  }
}

export function emptySpend(): SpendCounters {
  return {
    total: { start: '', nanoUsd: 0 },
    daily: { start: '', nanoUsd: 0 },
    weekly: { start: '', nanoUsd: 0 },
    monthly: { start: '', nanoUsd: 0 },
  };
}

/** The counters after one more cost of a request that started at `startedAtMs`. */
export function addSpend(counters: SpendCounters | undefined, startedAtMs: number, nanoUsd: number): SpendCounters {
  const next = counters ? { ...counters } : emptySpend();
  next.total = { start: '', nanoUsd: next.total.nanoUsd + nanoUsd };
  for (const period of resettingPeriods) {
    const start = periodStart(period, startedAtMs);
    const current = next[period];
    if (start > current.start) next[period] = { start, nanoUsd };
    else if (start === current.start) next[period] = { start, nanoUsd: current.nanoUsd + nanoUsd };
  }
  return next;
}

/** Spent in the period holding `now`: 0 when the counter's latest period is an earlier one. */
export function spentIn(counters: SpendCounters | undefined, period: BudgetPeriod, now: number): number {
  if (!counters) return 0;
  const counter = counters[period];
  return counter.start === periodStart(period, now) ? counter.nanoUsd : 0;
}

/** The owner key of a key's spend and of an account's spend, in the lookups and the ledgers. */
export const tokenSpendOwner = (tokenId: string) => `token:${tokenId}`;
export const userSpendOwner = (userId: string) => `user:${userId}`;
