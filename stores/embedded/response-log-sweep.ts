/**
 * @module stores/embedded/response-log-sweep
 * Once per file: the `response.stored` events logged before stored responses kept their log position
 * (response-writer.ts) are reached by the log's compaction too. Such a file has rows without a
 * position, tombstones of deleted responses whose conversation is still in the log, and no row at all
 * for a response that lapsed and was purged. Each `response.stored` event the projection has already
 * applied is visited: its conversation is taken out of the log when its response is deleted, lapsed
 * or gone, and a live row without a position gets the event's, so a later deletion or lapse compacts
 * it as it does a new one. Events past the checkpoint are left to the projection.
 */
import type { SqliteDatabase } from './database.ts';
import type { ResponseLogCompaction } from './response-log-compaction.ts';

const MIGRATION = 'response-log-positions';

export function sweepResponseLog(
  database: SqliteDatabase,
  log: ResponseLogCompaction,
  checkpoint: number,
  now = Date.now(),
): { compacted: number; positioned: number } {
  const done = database.prepare('SELECT 1 FROM projection_migrations WHERE name = ?').get(MIGRATION);
  if (done) return { compacted: 0, positioned: 0 };
  // `instr` skips, without parsing them, the batches that hold no response.stored event.
  const storedEvents = database.prepare(
    `SELECT batch.first_position + entry.key AS position, json_extract(entry.value, '$.body.responseId') AS id
     FROM event_batches AS batch, json_each(batch.payload) AS entry
     WHERE batch.first_position <= ? AND instr(batch.payload, '"type":"response.stored"') > 0
       AND json_extract(entry.value, '$.type') = 'response.stored' AND batch.first_position + entry.key <= ?`,
  );
  const rowOf = database.prepare(
    `SELECT expires_at, log_position, coalesce(json_extract(body, '$.deleted'), 0) AS deleted
     FROM stored_responses WHERE response_id = ?`,
  );
  const position = database.prepare('UPDATE stored_responses SET log_position = ? WHERE response_id = ?');
  let compacted = 0;
  let positioned = 0;
  database.transaction(() => {
    const events = storedEvents.all(checkpoint, checkpoint) as Array<{ position: number; id: unknown }>;
    for (const event of events) {
      if (typeof event.id !== 'string') continue;
      const row = rowOf.get(event.id) as
        | { expires_at: number; log_position: number | null; deleted: number }
        | undefined;
      if (!row || row.deleted || row.expires_at <= now) {
        if (log.compact(event.position, event.id)) compacted++;
      } else if (row.log_position === null) {
        position.run(event.position, event.id);
        positioned++;
      }
    }
    database.prepare('INSERT INTO projection_migrations (name) VALUES (?)').run(MIGRATION);
  })();
  return { compacted, positioned };
}
