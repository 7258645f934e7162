/**
 * @module stores/embedded/attribution-filters
 * The usage log's attribution filters as SQLite conditions: exact matches on the request's end user,
 * session and metadata values (`metadata` is a JSON object; names are letters, digits and `_ - . :`,
 * so a quoted JSON path names each one whole).
 */
import type { UsageLogsQuery } from '../../contracts/console-api.ts';

export interface SqlFilters {
  conditions: string[];
  parameters: Record<string, unknown>;
}

export function attributionFilters(query: Pick<UsageLogsQuery, 'end_user' | 'session_id' | 'metadata'>): SqlFilters {
  const conditions: string[] = [];
  const parameters: Record<string, unknown> = {};
  if (query.end_user !== undefined) {
    conditions.push('end_user = @endUser');
    parameters['endUser'] = query.end_user;
  }
  if (query.session_id !== undefined) {
    conditions.push('session_id = @sessionId');
    parameters['sessionId'] = query.session_id;
  }
  Object.entries(query.metadata ?? {}).forEach(([name, value], index) => {
    conditions.push(`json_extract(metadata, @metadataPath${index}) = @metadataValue${index}`);
    parameters[`metadataPath${index}`] = metadataPath(name);
    parameters[`metadataValue${index}`] = value;
  });
  return { conditions, parameters };
}

/** The JSON path of one metadata name. */
export function metadataPath(name: string): string {
  return `$."${name}"`;
}
