/**
 * @module stores/embedded/event-log-schema
 * The embedded event log's tables. Events are stored as the batches they were appended in (as a Kafka
 * broker stores record batches): one row per batch (an append brings one or several), holding the
 * events as one JSON array, with the position of its first event; its events take the positions after it, one each. A row per event cost
 * the store worker about twice as much per event (the row, its key, its columns), and the projector
 * reads the log in order anyway. Appends are idempotent by event id without a table of ids (see
 * event-log.ts). The view `events` shows one row per event, for analysts and tests that query by type.
 */
import { trafficTypes } from '../../contracts/events/index.ts';
import type { SqliteDatabase } from './database.ts';

const tables = `
CREATE TABLE IF NOT EXISTS event_batches (
  first_position INTEGER PRIMARY KEY,
  event_count INTEGER NOT NULL,
  payload TEXT NOT NULL
);
`;

// The stream as streamOf() names it, spelled in SQL from the same list: a view cannot call it.
const trafficTypeList = [...trafficTypes].map((type) => `'${type}'`).join(', ');
const view = `
CREATE VIEW IF NOT EXISTS events AS
SELECT batch.first_position + entry.key AS position,
  json_extract(entry.value, '$.eventId') AS event_id,
  CASE WHEN json_extract(entry.value, '$.type') IN (${trafficTypeList})
    THEN 'traffic' ELSE 'entity' END AS stream,
  json_extract(entry.value, '$.type') AS type,
  json_extract(entry.value, '$.version') AS version,
  json_extract(entry.value, '$.occurredAt') AS occurred_at,
  entry.value AS payload
FROM event_batches AS batch, json_each(batch.payload) AS entry;
`;

/**
 * Creates the log's tables and view. A file from before batches has a table `events` with one row per
 * event; its rows become batches of one at the same positions (so the projection checkpoint still
 * points at the same event), in one transaction, before the view takes the table's name. A file from
 * before the log remembered its newest ids in memory has a table `event_ids` of every id ever logged,
 * which nothing reads any more: it is dropped (its pages are reused by the appends that follow).
 */
export function prepareEventLog(database: SqliteDatabase): void {
  database.exec(tables);
  database.exec('DROP TABLE IF EXISTS event_ids');
  const legacy = database.prepare("SELECT type FROM sqlite_master WHERE name = 'events'").pluck().get();
  if (legacy === 'table') {
    database.transaction(() => {
      database.exec(`
        INSERT INTO event_batches (first_position, event_count, payload)
          SELECT position, 1, '[' || payload || ']' FROM events ORDER BY position;
        DROP TABLE events;`);
    })();
  }
  database.exec(view);
}
