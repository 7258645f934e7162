/**
 * The usage log's filters by what a request was: its endpoint, whether it was streamed, and the error
 * type it ended with, as the page holds them and as `GET /api/usage/logs` takes them.
 */
import type { UsageLogsQuery } from '@contracts/console-api.ts';
import { usageLogEndpoints } from '@contracts/usage-log-filters.ts';
import { relayErrorsEn } from '../locales/relay-errors.ts';

export interface LogKindFilters {
  endpoint: '' | (typeof usageLogEndpoints)[number];
  streamed: '' | 'true' | 'false';
  /** typed whole; the gateway's own codes are offered */
  errorType: string;
}

export const logEndpoints = usageLogEndpoints;

/** The gateway's own error codes, offered as the error type is typed (an upstream's types can be typed too). */
export const knownErrorTypes = Object.keys(relayErrorsEn).sort();

export const defaultKindFilters = (): LogKindFilters => ({ endpoint: '', streamed: '', errorType: '' });

export function kindQuery(filters: LogKindFilters): Pick<UsageLogsQuery, 'endpoint' | 'streamed' | 'error_type'> {
  const errorType = filters.errorType.trim();
  return {
    ...(filters.endpoint && { endpoint: filters.endpoint }),
    ...(filters.streamed && { streamed: filters.streamed }),
    ...(errorType && { error_type: errorType }),
  };
}
