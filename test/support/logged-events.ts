/**
 * @module test/support/logged-events
 * Reads a data directory's embedded event log straight from the SQLite file, on a read-only
 * connection of its own (the store worker owns the writing one; WAL lets both work at once). Flush
 * the gateway's publisher first: events still queued in memory are not in the file yet.
 *
 * `loggedEvents` gives the facts the projections apply (a request's usage as a `usage.recorded` of
 * its own: contracts/events/traffic-facts.ts), what most tests assert on; `loggedRecords` gives the
 * events as they are stored.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { SqliteEventLog } from '../../stores/embedded/event-log.ts';

export function loggedEvents(dataDirectory: string, limit = 100_000): GatewayEvent[] {
  return trafficFacts(loggedRecords(dataDirectory, limit));
}

export function loggedRecords(dataDirectory: string, limit = 100_000): GatewayEvent[] {
  const database = new Database(path.join(dataDirectory, 'gateway.db'), { readonly: true });
  try {
    return new SqliteEventLog(database).readAfter(0, limit).map(({ event }) => event);
  } finally {
    database.close();
  }
}
