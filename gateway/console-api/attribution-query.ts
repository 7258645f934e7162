/**
 * @module gateway/console-api/attribution-query
 * The attribution parts of the usage queries as the routes read them: `metadata.<key>=<value>`
 * parameters gathered into one `metadata` filter, and the overview's `by_group` over the overview's
 * own whole hours (its totals and its groups then count the same requests).
 */
import { groupingOf, type UsageOverviewQuery } from '../../contracts/console-api.ts';
import type { UsageGroupsQuery } from '../../stores/ports.ts';

const HOUR_MS = 3_600_000;

/** The query with its `metadata.<key>` parameters moved into `metadata` (absent when there are none). */
export function withMetadataFilters(query: Record<string, unknown>): Record<string, unknown> {
  const metadata: Array<[string, unknown]> = [];
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name.startsWith('metadata.')) metadata.push([name.slice('metadata.'.length), value]);
    else rest[name] = value;
  }
  return metadata.length > 0 ? { ...rest, metadata: Object.fromEntries(metadata) } : rest;
}

/** What `groups` sums for an overview asked with `group_by`: the hours the overview counts. */
export function groupsQueryOf(
  query: UsageOverviewQuery & { group_by: string },
  userId: string | null,
): UsageGroupsQuery {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  return {
    fromMs: from - (from % HOUR_MS),
    toMs: Math.ceil(to / HOUR_MS) * HOUR_MS,
    userId,
    model: query.model || undefined,
    tokenId: query.token_id || undefined,
    grouping: groupingOf(query.group_by),
  };
}
