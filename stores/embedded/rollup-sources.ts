/**
 * @module stores/embedded/rollup-sources
 * Which rollups answer an overview, and the SQL that reads a range from them: one `UNION ALL` branch
 * per interval (the whole days from the daily table, each ragged end from the hourly one), so every
 * branch is a single range scan of its table's key.
 */
import type { Interval, RangePlan } from './usage-range.ts';

export interface OverviewFilters {
  userId: string | null;
  model: string | null;
  tokenId: string | null;
}

export interface RollupPair {
  daily: string;
  hourly: string;
  /** The filters these tables can apply (the per-model tables have no user or key). */
  conditions: string[];
}

/** Every user together and no key filter: the small per-model tables; else the per-user ones. */
export function seriesSources(filters: OverviewFilters): RollupPair {
  if (filters.userId === null && filters.tokenId === null) {
    return {
      daily: 'usage_model_daily',
      hourly: 'usage_model_hourly',
      conditions: filters.model === null ? [] : ['model = @model'],
    };
  }
  return perUserSources(filters);
}

/** The tables with a key column: the top keys, and any overview of one user or one key. */
export function perUserSources(filters: OverviewFilters): RollupPair {
  const conditions: string[] = [];
  if (filters.userId !== null) conditions.push('user_id = @userId');
  if (filters.model !== null) conditions.push('model = @model');
  if (filters.tokenId !== null) conditions.push('token_id = @tokenId');
  return { daily: 'usage_daily', hourly: 'usage_hourly', conditions };
}

interface Branch {
  table: string;
  period: 'day' | 'hour';
  interval: Interval;
}

/** The branches that cover a range: whole days from the daily table (when `byDay`), the rest hourly. */
export function branchesOf(plan: RangePlan, sources: RollupPair, byDay: boolean): Branch[] {
  if (!byDay || plan.days === null) {
    const all = { start: plan.firstHour, end: plan.hoursEnd };
    return all.end > all.start ? [{ table: sources.hourly, period: 'hour', interval: all }] : [];
  }
  return [
    { table: sources.daily, period: 'day', interval: plan.days },
    ...plan.edges.map((interval) => ({ table: sources.hourly, period: 'hour' as const, interval })),
  ];
}

/**
 * `SELECT <columns> FROM (branch UNION ALL branch ...)`: `columns(period)` names what each branch
 * selects (its period column is `day` or `hour`), `conditions` filter every branch. Returns null
 * when there is no branch (an empty range).
 */
export function unionOf(
  branches: readonly Branch[],
  columns: (period: 'day' | 'hour') => string,
  conditions: readonly string[],
): { sql: string; parameters: Record<string, number> } | null {
  if (branches.length === 0) return null;
  const parameters: Record<string, number> = {};
  const parts = branches.map((branch, index) => {
    parameters[`start${index}`] = branch.interval.start;
    parameters[`end${index}`] = branch.interval.end;
    const where = [`${branch.period} >= @start${index}`, `${branch.period} < @end${index}`, ...conditions];
    return `SELECT ${columns(branch.period)} FROM ${branch.table} WHERE ${where.join(' AND ')}`;
  });
  return { sql: parts.join('\nUNION ALL\n'), parameters };
}
