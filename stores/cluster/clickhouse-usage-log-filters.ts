/**
 * @module stores/cluster/clickhouse-usage-log-filters
 * The usage log's filters by endpoint, streaming and error type (contracts/usage-log-filters.ts) as
 * ClickHouse conditions over the raw `requests` table. The rollups have none of these dimensions, so
 * a query with any of them is counted from the raw rows (clickhouse-usage-log-total.ts).
 */
import type { UsageLogFilters } from '../../contracts/usage-log-filters.ts';
import { stringLiteral } from './clickhouse-sql.ts';

export function usageLogFilterConditions(filters: UsageLogFilters): string[] {
  const conditions: string[] = [];
  if (filters.endpoint) conditions.push(`endpoint = ${stringLiteral(filters.endpoint)}`);
  if (filters.streamed) conditions.push(`stream = ${filters.streamed === 'true' ? 1 : 0}`);
  if (filters.error_type) conditions.push(`error_type = ${stringLiteral(filters.error_type)}`);
  return conditions;
}

/** True when the query filters on what only the raw rows record. */
export function filtersRawOnly(filters: UsageLogFilters): boolean {
  return usageLogFilterConditions(filters).length > 0;
}
