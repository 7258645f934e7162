/**
 * @module test/support/logged-events
 * Reads a data directory's embedded event log straight from the SQLite file, on a read-only
 * connection of its own (the store worker owns the writing one; WAL lets both work at once). Flush
 * the gateway's publisher first: events still queued in memory are not in the file yet.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { SqliteEventLog } from '../../stores/embedded/event-log.ts';

export function loggedEvents(dataDirectory: string, limit = 100_000): GatewayEvent[] {
  const database = new Database(path.join(dataDirectory, 'gateway.db'), { readonly: true });
  try {
    return new SqliteEventLog(database).readAfter(0, limit).map(({ event }) => event);
  } finally {
    database.close();
  }
}
