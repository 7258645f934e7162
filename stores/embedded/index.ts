/**
 * @module stores/embedded
 * The embedded default: one SQLite file under DATA_DIR holds the event log and every projection; the
 * projector runs in-process and applies new events right after they are appended.
 */

import { MemoryLookups } from '../memory-lookups.ts';
import { MemoryRateLimiter } from '../memory-rate-limiter.ts';
import type { Stores } from '../ports.ts';
import { openDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageQueries } from './usage-queries.ts';

const BATCH = 1000;

export interface EmbeddedStores extends Stores {
  /** Applies every logged event not yet projected. Synchronous: SQLite is in-process. */
  catchUp(): number;
}

export function createEmbeddedStores(dataDirectory: string): EmbeddedStores {
  const database = openDatabase(dataDirectory);
  const lookups = new MemoryLookups();
  const events = new SqliteEventLog(database);
  const writer = new SqliteProjectionWriter(database, lookups);
  writer.loadLookups();

  function catchUp(): number {
    let applied = 0;
    for (;;) {
      const batch = events.readAfter(writer.checkpoint(), BATCH);
      if (batch.length === 0) return applied;
      writer.apply(batch);
      applied += batch.length;
    }
  }
  catchUp();

  // Project right after each append, off the caller's stack, so a burst of appends is applied together.
  // A failure here (the disk full: SQLITE_FULL) must not escape as an uncaught exception, which would end
  // the process: the events are safe in the log, so log it and try again shortly.
  let scheduled = false;
  function scheduleCatchUp(delayMs = 0): void {
    if (scheduled) return;
    scheduled = true;
    const run = () => {
      scheduled = false;
      if (!database.open) return;
      try {
        catchUp();
      } catch (error) {
        console.error(JSON.stringify({ level: 'error', msg: 'projection failed; will retry', error: String(error) }));
        scheduleCatchUp(1_000);
      }
    };
    if (delayMs === 0) setImmediate(run);
    else setTimeout(run, delayMs).unref();
  }
  events.onAppended(() => scheduleCatchUp());

  return {
    mode: 'embedded',
    events,
    lookups,
    rateLimiter: new MemoryRateLimiter(),
    usage: new SqliteUsageQueries(database),
    backlog: async () => ({
      outboxDepth: null,
      projectorLagEvents: database.open ? Math.max(0, events.lastPosition() - writer.checkpoint()) : null,
    }),
    sync: { caughtUp: async () => void catchUp() },
    catchUp,
    ready: async () => database.open,
    close: async () => {
      catchUp();
      database.close();
    },
  };
}
