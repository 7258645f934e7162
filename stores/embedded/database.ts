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
  // WAL: readers never block the writer; synchronous=NORMAL is durable across process crashes
  // (a power loss can drop the last transactions, never corrupt the file).
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  prepareEventLog(database);
  database.exec(projectionSchema);
  return database;
}
