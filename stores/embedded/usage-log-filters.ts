/**
 * @module stores/embedded/usage-log-filters
 * The usage log's filters by endpoint, streaming and error type (contracts/usage-log-filters.ts) as
 * SQLite conditions over the raw `requests` table, with their named parameters.
 */
import type { UsageLogFilters } from '../../contracts/usage-log-filters.ts';

export function usageLogFilterConditions(filters: UsageLogFilters): {
  conditions: string[];
  parameters: Record<string, string | number>;
} {
  const conditions: string[] = [];
  const parameters: Record<string, string | number> = {};
  if (filters.endpoint) {
    conditions.push('endpoint = @filterEndpoint');
    parameters['filterEndpoint'] = filters.endpoint;
  }
  if (filters.streamed) {
    conditions.push('coalesce(stream, 0) = @filterStreamed');
    parameters['filterStreamed'] = filters.streamed === 'true' ? 1 : 0;
  }
  if (filters.error_type) {
    conditions.push('error_type = @filterErrorType');
    parameters['filterErrorType'] = filters.error_type;
  }
  return { conditions, parameters };
}
