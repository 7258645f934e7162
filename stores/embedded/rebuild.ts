/**
 * @module stores/embedded/rebuild
 * Drops every embedded projection and replays the event log into it, reporting progress. Run it with
 * the gateway stopped: the in-memory lookups of a running process would not see the rebuild.
 */
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';
import { type ProjectionOptions, SqliteProjectionWriter } from './projection-writer.ts';
import { projectionSchema, projectionTables } from './schema.ts';

const BATCH = 5000;

export function rebuildEmbedded(
  dataDirectory: string,
  progress: (applied: number, total: number) => void,
  options: ProjectionOptions = {},
): number {
  const database = openDatabase(dataDirectory);
  try {
    const events = new SqliteEventLog(database);
    const total = events.count();
    database.transaction(() => {
      for (const table of projectionTables) database.exec(`DROP TABLE IF EXISTS ${table}`);
      database.exec(projectionSchema);
    })();
    const writer = new SqliteProjectionWriter(database, new MemoryLookups(), options);
    let applied = 0;
    for (;;) {
      const batch = events.readAfter(writer.checkpoint(), BATCH);
      if (batch.length === 0) break;
      writer.apply(batch);
      applied += batch.length;
      progress(applied, total);
    }
    return applied;
  } finally {
    database.close();
  }
}
