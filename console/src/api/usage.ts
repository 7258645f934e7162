/** The data overview and the usage log. */
import type { UsageLogsPage, UsageLogsQuery, UsageOverview, UsageOverviewQuery } from '@contracts/console-api.ts';
import { api } from './client.ts';

/**
 * The log query as sent: the contract's fields plus the admin's `user_id` scope, the metadata filter
 * as `metadata.<key>` parameters.
 */
export type UsageLogsRequest = Omit<UsageLogsQuery, 'metadata'> & {
  user_id?: string | undefined;
  [metadata: `metadata.${string}`]: string;
};

export const getUsageOverviewApi = (query: UsageOverviewQuery, signal?: AbortSignal) =>
  api.get<UsageOverview>('/usage/overview', { query, ...(signal && { signal }) });
export const listUsageLogsApi = (query: UsageLogsRequest, signal?: AbortSignal) =>
  api.get<UsageLogsPage>('/usage/logs', { query, ...(signal && { signal }) });
