/**
 * @module stores/embedded/attribution-columns
 * How a request's attribution is written to its SQLite row: its columns (attribution-migration.ts)
 * and their values, in the same order.
 */
import type { RequestCompleted } from '../../contracts/events/index.ts';

export const attributionColumnList = ['end_user', 'session_id', 'metadata'];

export function attributionValues(body: RequestCompleted['body']): unknown[] {
  const attribution = body.attribution;
  if (attribution === undefined) return [null, null, null];
  const metadata = attribution.metadata;
  return [
    attribution.endUser ?? null,
    attribution.sessionId ?? null,
    metadata && Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : null,
  ];
}
