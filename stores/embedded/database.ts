/**
 * @module stores/embedded/database
 * Opens the embedded SQLite file with the settings a durable, concurrent-read store needs.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { prepareEventLog } from './event-log-schema.ts';
import { projectionSchema } from './schema.ts';

export type SqliteDatabase = Database.Database;

export function openDatabase(dataDirectory: string): SqliteDatabase {
  mkdirSync(dataDirectory, { recursive: true });
  const database = new Database(path.join(dataDirectory, 'gateway.db'));
  useIncrementalVacuum(database);
  // WAL: readers never block the writer; synchronous=NORMAL is durable across process crashes
  // (a power loss can drop the last transactions, never corrupt the file).
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  // A deleted row's text is overwritten on the pages that stay in use, not left in their free space.
  database.pragma('secure_delete = FAST');
  prepareEventLog(database);
  database.exec(projectionSchema);
  return database;
}

/**
 * Pages freed by deletions (a stored response deleted or lapsed) can be handed back to the file
 * system with `PRAGMA incremental_vacuum` (stores/embedded/response-writer.ts); without it the file
 * never shrinks. A new file takes the setting before its first table; a file made before it is
 * rewritten once by VACUUM (it needs free disk space about the size of the file, once).
 */
function useIncrementalVacuum(database: SqliteDatabase): void {
  const INCREMENTAL = 2;
  if (database.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  database.pragma('auto_vacuum = INCREMENTAL');
  if ((database.pragma('page_count', { simple: true }) as number) > 0) database.exec('VACUUM');
}
