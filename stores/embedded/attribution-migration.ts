/**
 * @module stores/embedded/attribution-migration
 * The request rows' attribution columns (contracts/attribution.ts), added to files of any age at open:
 * `end_user`, `session_id` and `metadata` (a JSON object of strings, read with json_extract). Rows
 * written before them hold NULL: their events carried no attribution. A session's requests are found
 * by the session index; the per-user index already orders a user's rows by time.
 */
import type { SqliteDatabase } from './database.ts';

const columns = ['end_user', 'session_id', 'metadata'] as const;

/** Returns whether a column was added (false when the file had them all). */
export function addAttributionColumns(database: SqliteDatabase): boolean {
  const present = new Set(database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('requests'));
  const missing = columns.filter((column) => !present.has(column));
  database.transaction(() => {
    for (const column of missing) database.exec(`ALTER TABLE requests ADD COLUMN ${column} TEXT`);
    database.exec(
      'CREATE INDEX IF NOT EXISTS requests_session ON requests (session_id, started_at) WHERE session_id IS NOT NULL',
    );
  })();
  return missing.length > 0;
}
