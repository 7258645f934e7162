/**
 * @module gateway/relay/budget
 * Money budgets on the hot path, the key's and its account's (all of its keys together), held like
 * the token quota (quota.ts): before the request is relayed it holds the most the request may cost
 * in the shared ledger, under an account named by the budget's current calendar period (so a new
 * day, week or month starts an empty account), and when it ends the hold is settled to the cost the
 * usage event records. The most a request may cost is its prompt estimate (4 bytes a token) at the
 * dearest rate a prompt token may be charged (the input price, or a cache write's, five-minute or
 * one-hour, which cost more) plus the completion it allows at the output price, at the dearest channel
 * that could serve it. A model no channel prices spends nothing and holds nothing.
 */
import type { BudgetPeriod } from '../../contracts/events/index.ts';
import {
  periodEndMs,
  periodStart,
  spentIn,
  tokenSpendOwner,
  userSpendOwner,
} from '../../projector/read-models/spend/spend.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel, QuotaLedger } from '../../stores/ports.ts';
import { costNanoUsd } from '../pricing/cost.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import type { Route } from './channel-router.ts';
import { GatewayError } from './errors.ts';

const DAY_MS = 86_400_000;

/** True when the key or its account has a budget: the one check a request without budgets pays. */
export function hasBudget(token: TokenDocument, lookups: LookupReadModel): boolean {
  return token.budgetNanoUsd != null || lookups.userById(token.userId)?.budgetNanoUsd != null;
}

/** USD with at least two decimals and at most nine (a nano-dollar), for messages. */
export function formatUsd(nanoUsd: number): string {
  const text = (nanoUsd / 1e9).toFixed(9).replace(/0{1,7}$/, '');
  return `$${text}`;
}

/** The most the request may cost over the routes that could serve it; null when none prices it. */
export function estimatedMaximumCost(
  prices: PriceBook,
  model: string,
  routes: readonly Route[],
  promptTokens: number,
  completionTokens: number,
  now: number,
): number | null {
  let highest: number | null = null;
  const uncached = { promptTokens, completionTokens, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  // Which of these is dearest depends on the price: each is tried.
  const prompts = [
    uncached,
    { ...uncached, cacheWriteTokens: promptTokens },
    { ...uncached, cacheWriteTokens: promptTokens, cacheWrite1hTokens: promptTokens },
  ];
  for (const route of routes) {
    const price = prices.priceOf({
      model,
      upstreamModel: route.upstreamModel,
      channelType: route.channel.type,
      baseUrl: route.channel.baseUrl,
      promptTokens,
      at: new Date(now),
    });
    if (price === null) continue;
    for (const tokens of prompts) {
      const cost = costNanoUsd(price, tokens);
      if (highest === null || cost > highest) highest = cost;
    }
  }
  return highest;
}

interface Budget {
  owner: string;
  /** `this API key's` or `your account's` */
  whose: 'key' | 'account';
  limit: number;
  period: BudgetPeriod;
}

function budgetsOf(token: TokenDocument, lookups: LookupReadModel): Budget[] {
  const budgets: Budget[] = [];
  if (token.budgetNanoUsd != null) {
    const period = token.budgetPeriod ?? 'total';
    budgets.push({ owner: tokenSpendOwner(token.tokenId), whose: 'key', limit: token.budgetNanoUsd, period });
  }
  const user = lookups.userById(token.userId);
  if (user?.budgetNanoUsd != null) {
    const period = user.budgetPeriod ?? 'total';
    budgets.push({ owner: userSpendOwner(user.userId), whose: 'account', limit: user.budgetNanoUsd, period });
  }
  return budgets;
}

/** Spent at or past the limit: every call is refused until the period resets or the limit is raised. */
function isSpent(used: number, limit: number): boolean {
  return used >= limit;
}

/**
 * Whose budget, of the key's and its account's, is spent in its current period by the recorded spend
 * (the test `reserveBudgets` refuses with, before any hold); null when neither is.
 */
export function spentBudget(token: TokenDocument, lookups: LookupReadModel, now: number): 'key' | 'account' | null {
  for (const budget of budgetsOf(token, lookups)) {
    if (isSpent(spentIn(lookups.spend(budget.owner), budget.period, now), budget.limit)) return budget.whose;
  }
  return null;
}

function resetsText(period: BudgetPeriod, now: number): string {
  const end = periodEndMs(period, now);
  if (end === null) return 'It does not reset';
  return `It resets at ${new Date(end).toISOString()} (UTC)`;
}

function refusal(budget: Budget, used: number, held: number, now: number): GatewayError {
  const name =
    budget.whose === 'key'
      ? `This API key's ${budget.period} budget`
      : `Your account's ${budget.period} budget (all of its keys together)`;
  const raise = budget.whose === 'key' ? 'raise the key’s budget in the console' : 'ask an administrator to raise it';
  const resets = resetsText(budget.period, now);
  if (isSpent(used, budget.limit)) {
    return new GatewayError(
      'insufficient_quota',
      `${name} of ${formatUsd(budget.limit)} is spent (${formatUsd(used)} used). ${resets}; or ${raise}.`,
      { code: 'budget_exceeded' },
    );
  }
  return new GatewayError(
    'rate_limit',
    `${name} of ${formatUsd(budget.limit)} is held by requests in flight (${formatUsd(used)} spent, ${formatUsd(held)} held). Retry when they finish. ${resets}; or ${raise}.`,
    { code: 'budget_held_by_requests_in_flight', headers: { 'retry-after': '1' } },
  );
}

/**
 * Holds `amount` nano-dollars of every budget of the key and its account, or throws the refusal
 * (giving back what it held). Answers the ledger accounts to settle when the request ends.
 */
export async function reserveBudgets(
  quotas: QuotaLedger,
  lookups: LookupReadModel,
  token: TokenDocument,
  amount: number,
  holdId: string,
  now: number,
): Promise<string[]> {
  const held: string[] = [];
  for (const budget of budgetsOf(token, lookups)) {
    const account = `budget:${budget.owner}:${budget.period}:${periodStart(budget.period, now)}`;
    const end = periodEndMs(budget.period, now);
    const reservation = {
      quota: budget.limit,
      amount,
      projectedUsed: spentIn(lookups.spend(budget.owner), budget.period, now),
      holdId,
      failClosed: true,
      // A day past its period's end, an account's requests have all settled: the ledger may forget it.
      ...(end !== null && { lapsesAt: end + DAY_MS }),
    };
    const decision = await quotas.reserve(account, reservation, now).catch(async () => {
      // The hold may have been taken all the same: give it back with the others.
      await settleBudgets(quotas, [...held, account], holdId, 0);
      throw new GatewayError(
        'overloaded',
        'The shared budget ledger did not answer in time, so this budgeted key cannot be checked; retry in a moment.',
        { code: 'budget_unavailable', headers: { 'retry-after': '1' } },
      );
    });
    if (!decision.allowed) {
      await settleBudgets(quotas, held, holdId, 0);
      throw refusal(budget, decision.used, decision.held, now);
    }
    held.push(account);
  }
  return held;
}

/** Settles the holds to the request's recorded cost (null, unpriced: nothing spent). */
export function settleBudgets(
  quotas: QuotaLedger,
  accounts: readonly string[],
  holdId: string,
  cost: number | null,
): Promise<unknown> {
  return Promise.all(accounts.map((account) => quotas.settle(account, holdId, cost ?? 0)));
}
